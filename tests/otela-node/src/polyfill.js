// Node 20 lacks Promise.withResolvers (a Node 22 API) that js-libp2p's
// dependencies call. This module must be evaluated before libp2p is loaded.
if (typeof Promise.withResolvers !== 'function') {
	Promise.withResolvers = function withResolvers () {
		let resolve, reject
		const promise = new this((res, rej) => { resolve = res; reject = rej })
		return { promise, resolve, reject }
	}
}
