// A peer's dial in go-libp2p's order (its swarm's DefaultDialRanker):
// the direct addresses at once (one after the other, js-libp2p's dial),
// the circuit addresses beside them RELAY_DELAY_MS later, the first
// connection kept and the other dials aborted. go-libp2p delays the
// circuits only behind a public direct address (at once behind private
// ones); the stand-in always does, so that on loopback, where every
// direct dial gets through, no circuit races it. js-libp2p's own dial
// tries the circuits only after the direct addresses (6 s each), so a
// direct address whose SYNs a firewall drops holds them back.
import { multiaddr } from '@multiformats/multiaddr'
import { isCircuit } from './relay.js'

export const RELAY_DELAY_MS = 500

function withPeer (ma, id) {
	return ma.getComponents().findLast(c => c.name === 'p2p')?.value === id ? ma : ma.encapsulate(`/p2p/${id}`)
}

function wait (ms, signal) {
	return new Promise(resolve => {
		if (ms === 0 || signal.aborted) return resolve()
		const t = setTimeout(resolve, ms)
		signal.addEventListener('abort', () => { clearTimeout(t); resolve() }, { once: true })
	})
}

// The order of the dial: [{ addrs, delayMs }], the direct addresses at
// 0, each circuit at RELAY_DELAY_MS (at 0 when there is no direct one).
export function dialOrder (addrs) {
	const direct = addrs.filter(a => !isCircuit(a))
	const relayDelay = direct.length > 0 ? RELAY_DELAY_MS : 0
	return [...(direct.length > 0 ? [{ addrs: direct, delayMs: 0 }] : []),
		...addrs.filter(a => isCircuit(a)).map(a => ({ addrs: [a], delayMs: relayDelay }))]
}

// dials under way, per node and peer: a second dial of a peer joins the
// first, as go-libp2p's swarm (dialSync) keeps one dial per peer
const pending = new WeakMap()

function aborted (signal, id) {
	return new Promise((resolve, reject) => {
		const fail = () => reject(new Error(`dial ${id}: aborted`))
		if (signal.aborted) return fail()
		signal.addEventListener('abort', fail, { once: true })
	})
}

// Dials peer `id` (a string) over addrs (strings or multiaddrs) in that
// order through the node's transport manager, not js-libp2p's dial queue;
// resolves with the first connection, rejects when every address failed
// or signal fired. An open connection to the peer is returned as is.
export async function dialRanked (node, id, addrs, signal) {
	const open = node.getConnections().find(c => c.status === 'open' && c.remotePeer.toString() === id)
	if (open) return open
	if (!pending.has(node)) pending.set(node, new Map())
	const mine = pending.get(node)
	const under = mine.get(id)
	if (under) return Promise.race([under, aborted(signal, id)])
	const dial = dialAll(node, id, addrs, signal).finally(() => mine.delete(id))
	mine.set(id, dial)
	return dial
}

async function dialAll (node, id, addrs, signal) {
	const tm = node.components?.transportManager
	if (!tm) throw new Error('libp2p has no transport manager to dial with')
	const order = dialOrder(addrs.map(a => withPeer(typeof a === 'string' ? multiaddr(a) : a, id)))
	if (order.length === 0) throw new Error(`dial ${id}: no address`)
	const done = new AbortController()
	const stop = AbortSignal.any([signal, done.signal])
	const one = async ({ addrs, delayMs }) => {
		await wait(delayMs, stop)
		if (stop.aborted) throw new Error(`dial ${addrs[0]}: aborted`)
		return isCircuit(addrs[0]) ? tm.dial(addrs[0], { signal: stop }) : node.dial(addrs, { signal: stop })
	}
	try {
		return await Promise.any(order.map(one))
	} catch (err) {
		if (signal.aborted) throw new Error(`dial ${id}: aborted`)
		throw new Error(`dial ${id}: ${err.errors?.map(e => e.message).join('; ') ?? err.message}`)
	} finally {
		done.abort()
	}
}
