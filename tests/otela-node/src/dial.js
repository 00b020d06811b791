// A peer's dial in go-libp2p's order (its swarm's DefaultDialRanker):
// the direct addresses at once, the circuit addresses beside them
// RELAY_DELAY_MS later (at once when the peer has no public direct
// address), each in parallel, the first connection kept and the other
// dials aborted. js-libp2p's own dial tries one address after the other,
// so a direct address whose SYNs a firewall drops holds the circuit back
// until that dial gives up.
import { multiaddr } from '@multiformats/multiaddr'
import { isCircuit } from './relay.js'

export const RELAY_DELAY_MS = 500

// go-multiaddr's private IPv4 ranges (manet.IsPrivateAddr), loopback among them
const PRIVATE4 = [['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]]
const ip4Number = ip => ip.split('.').reduce((a, b) => a * 256 + Number(b), 0)

function isPrivate4 (ip) {
	const n = ip4Number(ip)
	return PRIVATE4.some(([net, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(ip4Number(net) / 2 ** (32 - bits)))
}

function isPublicDirect (ma) {
	const c = ma.getComponents()
	const ip4 = c.find(x => x.name === 'ip4')
	if (ip4) return !isPrivate4(ip4.value)
	const ip6 = c.find(x => x.name === 'ip6')
	return ip6 !== undefined && !/^(::1$|f[cd]|fe[89ab])/i.test(ip6.value)
}

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

// The order go-libp2p's ranker gives the addresses: [{ ma, delayMs }],
// the direct ones at 0, the circuits at RELAY_DELAY_MS when a direct one
// is public, else at 0.
export function dialOrder (addrs) {
	const relayed = addrs.filter(a => isCircuit(a))
	const direct = addrs.filter(a => !isCircuit(a))
	const relayDelay = direct.some(isPublicDirect) ? RELAY_DELAY_MS : 0
	return [...direct.map(ma => ({ ma, delayMs: 0 })), ...relayed.map(ma => ({ ma, delayMs: relayDelay }))]
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
	const one = async ({ ma, delayMs }) => {
		await wait(delayMs, stop)
		if (stop.aborted) throw new Error(`dial ${ma}: aborted`)
		return tm.dial(ma, { signal: stop })
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
