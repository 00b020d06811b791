// Hole punching: DCUtR (Direct Connection Upgrade through Relay, libp2p's
// /libp2p/dcutr with the spec's HolePunch messages), what the real node's
// POST /v1/probe/holepunch calls as TryHolePunch, and what go-libp2p's
// hole punch service also starts by itself on an inbound relayed
// connection. Both sides tell each other their listen addresses over the
// relayed connection (CONNECT, CONNECT, SYNC), then dial each other at
// once, each forcing a new direct connection: one side that can reach the
// other's listen port is enough. Unlike go-libp2p, js-libp2p cannot dial
// from its listen port (no SO_REUSEPORT for outgoing TCP), so two sides
// that can both only dial out (two firewalled sites, two NATs) stay
// relayed where the real node could get through a stateful firewall or a
// cone NAT.
//
// @libp2p/dcutr is not used: it only takes addresses it deems public, and
// every lab address (198.18.0.0/15) is in its private list.
//
// OTELA_FAKE_NO_HOLEPUNCH=1 is the real node at commit e0591341: its hole
// punch service is never made (its host is not a *basichost.BasicHost),
// so nothing punches and every TryHolePunch fails with `hole punch service
// not initialized`.
import { multiaddr } from '@multiformats/multiaddr'
import { peerIdFromString } from '@libp2p/peer-id'
import { StreamReader, sendAll } from './wire.js'
import { holePunchEnabled, holePunchFinished, directDialFinished } from './metrics.js'

export const DCUTR_PROTOCOL = '/libp2p/dcutr'
export const NOT_INITIALIZED = 'hole punch service not initialized'
const CONNECT = 100
const SYNC = 300
const MAX_MESSAGE = 4096
const RETRIES = 3
const DIAL_TIMEOUT_MS = 5000

const isCircuit = ma => ma.toString().includes('/p2p-circuit')

// --- the HolePunch message: field 1 type (varint), field 2 obsAddrs
// (repeated bytes); each message length-prefixed with a varint -----------

function varint (n) {
	const out = []
	while (n >= 0x80) {
		out.push((n & 0x7f) | 0x80)
		n >>>= 7
	}
	out.push(n)
	return Buffer.from(out)
}

function encode (type, addrs) {
	const parts = [Buffer.from([0x08]), varint(type)]
	for (const a of addrs) parts.push(Buffer.from([0x12]), varint(a.length), Buffer.from(a))
	const body = Buffer.concat(parts)
	return Buffer.concat([varint(body.length), body])
}

async function readVarint (reader) {
	let n = 0
	let shift = 0
	for (;;) {
		const b = (await reader.readExact(1))[0]
		n |= (b & 0x7f) << shift
		if (!(b & 0x80)) return n
		shift += 7
		if (shift > 28) throw new Error('varint too long')
	}
}

async function readMessage (reader) {
	const len = await readVarint(reader)
	if (len > MAX_MESSAGE) throw new Error(`hole punch message of ${len} bytes`)
	const body = await reader.readExact(len)
	let at = 0
	const msg = { type: 0, addrs: [] }
	const next = () => {
		let n = 0
		let shift = 0
		for (;;) {
			const b = body[at++]
			n |= (b & 0x7f) << shift
			if (!(b & 0x80)) return n
			shift += 7
		}
	}
	while (at < body.length) {
		const key = next()
		if (key === 0x08) msg.type = next()
		else if (key === 0x12) {
			const l = next()
			msg.addrs.push(body.subarray(at, at + l))
			at += l
		} else throw new Error(`unexpected hole punch field ${key}`)
	}
	return msg
}

// --- addresses -------------------------------------------------------------

// The node's own direct listen addresses, as bytes (not loopback).
function ownAddrs (node) {
	return node.getMultiaddrs()
		.filter(ma => !isCircuit(ma) && !ma.toString().startsWith('/ip4/127.'))
		.map(ma => ma.bytes)
}

function dialable (bytes, peer) {
	const out = []
	for (const b of bytes) {
		try {
			const ma = multiaddr(b)
			if (isCircuit(ma) || ma.toString().startsWith('/ip4/127.')) continue
			out.push(ma.toString().includes('/p2p/') ? ma : ma.encapsulate(`/p2p/${peer}`))
		} catch {}
	}
	return out
}

// go-libp2p's manet.IsPublicAddr for IPv4: none of the private and
// unroutable ranges (198.18.0.0/15, the lab's, is one of them).
const NOT_PUBLIC = [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8],
	['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
	['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3]]
const ip4 = text => text.split('.').reduce((n, x) => n * 256 + Number(x), 0)
export function isPublicAddr (ma) {
	const m = /^\/ip4\/([\d.]+)\//.exec(ma.toString())
	if (!m) return false
	const a = ip4(m[1])
	return !NOT_PUBLIC.some(([net, bits]) => Math.floor(a / 2 ** (32 - bits)) === Math.floor(ip4(net) / 2 ** (32 - bits)))
}

export function directConnection (node, peerId) {
	return node.getConnections(peerIdFromString(peerId))
		.find(c => c.status === 'open' && !isCircuit(c.remoteAddr)) ?? null
}

// Dials addrs, forcing a new connection; resolves to whether a direct
// connection to peer exists afterwards (the other side's dial may be the
// one that got through: its connection is waited for a little).
async function punchDial (ctx, peer, addrs) {
	try {
		await ctx.node.dial(addrs, { force: true, signal: AbortSignal.any([ctx.stopSignal, AbortSignal.timeout(DIAL_TIMEOUT_MS)]) })
	} catch {}
	for (let i = 0; i < 10 && !ctx.stopSignal.aborted; i++) {
		if (directConnection(ctx.node, peer)) return true
		await new Promise(resolve => setTimeout(resolve, 100))
	}
	return directConnection(ctx.node, peer) !== null
}

// The responder's side of one punch: answer CONNECT with our addresses,
// wait for SYNC, dial at once.
function punchHandler (ctx) {
	return async (stream, connection) => {
		const peer = connection.remotePeer.toString()
		try {
			const reader = new StreamReader(stream)
			const connect = await readMessage(reader)
			if (connect.type !== CONNECT) throw new Error(`expected CONNECT message from initiator but got ${connect.type}`)
			await sendAll(stream, encode(CONNECT, ownAddrs(ctx.node)))
			const sync = await readMessage(reader)
			if (sync.type !== SYNC) throw new Error(`expected SYNC message from initiator but got ${sync.type}`)
			await stream.close().catch(() => {})
			const addrs = dialable(connect.addrs, peer)
			const got = await punchDial(ctx, peer, addrs)
			holePunchFinished(ctx.metrics, 'receiver', 1, outcomeOf(got, addrs))
			ctx.log('info', `hole punch with ${peer} (responder): ${got ? 'direct connection' : 'no direct connection'}`)
		} catch (err) {
			ctx.log('debug', `hole punch stream from ${peer}: ${err.message}`)
			stream.abort(err)
		}
	}
}

// go-libp2p's outcome of an exchange: no address of the other side's to
// dial is no_suitable_address.
const outcomeOf = (got, addrs) => got ? 'success' : addrs.length === 0 ? 'no_suitable_address' : 'failed'

// One exchange and dial as the initiator, over a relayed connection: its
// outcome.
async function punchOnce (ctx, peer, conn) {
	let stream
	try {
		stream = await conn.newStream(DCUTR_PROTOCOL, { runOnLimitedConnection: true, signal: AbortSignal.timeout(DIAL_TIMEOUT_MS) })
	} catch (err) {
		throw new Error(`failed to open hole-punching stream: ${err.message}`)
	}
	const reader = new StreamReader(stream)
	let remote
	let rtt
	try {
		const t0 = Date.now()
		await sendAll(stream, encode(CONNECT, ownAddrs(ctx.node)))
		remote = await readMessage(reader)
		rtt = Date.now() - t0
		if (remote.type !== CONNECT) throw new Error(`expected CONNECT message but got ${remote.type}`)
		await sendAll(stream, encode(SYNC, []))
		await stream.close().catch(() => {})
	} catch (err) {
		stream.abort(err)
		throw new Error(`failed to read CONNECT message from remote peer: ${err.message}`)
	}
	await new Promise(resolve => setTimeout(resolve, rtt / 2))
	const addrs = dialable(remote.addrs, peer)
	return outcomeOf(await punchDial(ctx, peer, addrs), addrs)
}

// TryHolePunch: null when a direct connection exists afterwards, else the
// error text, as go-libp2p's DirectConnect words it.
export async function tryHolePunch (ctx, peer) {
	if (!ctx.punch) return NOT_INITIALIZED
	if (directConnection(ctx.node, peer)) return null
	if (ctx.punching.has(peer)) return 'another hole punching attempt to this peer is active'
	ctx.punching.add(peer)
	try {
		// a direct dial first, only when the peer has a public address
		let known = []
		try {
			known = (await ctx.node.peerStore.get(peerIdFromString(peer))).addresses.map(a => a.multiaddr)
		} catch {}
		const open = known.filter(ma => !isCircuit(ma) && isPublicAddr(ma))
		if (open.length > 0) {
			const got = await punchDial(ctx, peer, dialable(open.map(ma => ma.bytes), peer))
			directDialFinished(ctx.metrics, got)
			if (got) return null
		}
		const relayed = ctx.node.getConnections(peerIdFromString(peer)).find(c => c.status === 'open' && isCircuit(c.remoteAddr))
		if (!relayed) return 'failed to open hole-punching stream: no usable connection to peer'
		for (let i = 1; i <= RETRIES; i++) {
			const outcome = await punchOnce(ctx, peer, relayed)
			// the tracer counts a success, or the last attempt's end
			if (outcome === 'success' || i === RETRIES) holePunchFinished(ctx.metrics, 'initiator', i, outcome)
			if (outcome === 'success') return null
		}
		return `all retries for hole punch with peer ${peer} failed`
	} catch (err) {
		return err.message
	} finally {
		ctx.punching.delete(peer)
	}
}

// The service: the protocol's handler and, as go-libp2p's hole puncher, a
// punch of its own on every inbound relayed connection. Nothing with
// OTELA_FAKE_NO_HOLEPUNCH (the real node at e0591341 logs why).
export async function startHolePunch (ctx) {
	ctx.punching = new Set()
	if (!ctx.punch) {
		ctx.log('warn', 'host is not *basichost.BasicHost; hole punching disabled (OTELA_FAKE_NO_HOLEPUNCH)')
		return
	}
	holePunchEnabled(ctx.metrics)
	await ctx.node.handle(DCUTR_PROTOCOL, punchHandler(ctx), { runOnLimitedConnection: true, maxInboundStreams: 4 })
	ctx.node.addEventListener('connection:open', evt => {
		const conn = evt.detail
		if (conn.direction !== 'inbound' || !isCircuit(conn.remoteAddr)) return
		const peer = conn.remotePeer.toString()
		setTimeout(() => {
			if (ctx.stopSignal.aborted || directConnection(ctx.node, peer)) return
			tryHolePunch(ctx, peer).then(err => ctx.log('info', `hole punch with ${peer} on its relayed connection: ${err ?? 'direct connection'}`))
		}, 200)
	})
}
