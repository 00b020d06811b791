// The node's place on a path through a relay, as the real node's
// internal/protocol/host.go sets it up:
// - every node enables a circuit relay v2 service with the limits lifted
//   (EnableRelayService(WithInfiniteLimits)), which go-libp2p's relay
//   manager runs only while the node is public (so a private node relays
//   for nobody, and only a public one is a relay); OTELA_FAKE_RELAY_LIMITED=1
//   gives it libp2p's default limits instead (128 KiB and 2 min per
//   circuit), as a third-party public relay has;
// - a node is private unless cfg.yaml's public-addr is set or its
//   reachability says public, and a private node reserves a slot on every
//   connected peer that offers the relay service (AutoRelay with 16 relays
//   and a boot delay of 5 s, OTELA_FAKE_RELAY_BOOT_MS), which makes it
//   reachable at /p2p/<relay>/p2p-circuit/p2p/<it>; the first relay it
//   reserved on is its relay_peer in the node table (MakeRelayReservations).
import { multiaddr } from '@multiformats/multiaddr'
import { circuitRelayServer, RELAY_V2_HOP_CODEC } from '@libp2p/circuit-relay-v2'

export const MAX_RELAYS = 16
const KiB128 = 131072n
const TWO_MINUTES_MS = 120000

// The relay service's options; limited: libp2p's defaults.
export function relayServer (limited) {
	return circuitRelayServer({
		reservations: {
			maxReservations: 512,
			applyDefaultLimit: limited,
			defaultDataLimit: KiB128,
			defaultDurationLimit: TWO_MINUTES_MS
		},
		maxInboundHopStreams: 128,
		maxOutboundStopStreams: 300
	})
}

export function relayDescription (limited) {
	return limited
		? `relay service: limited (${KiB128} bytes, ${TWO_MINUTES_MS / 1000} s per circuit, OTELA_FAKE_RELAY_LIMITED)`
		: 'relay service: unlimited (as WithInfiniteLimits)'
}

// Private, as the real node decides: reachability public or private says
// so; otherwise (auto, absent) public only with a public-addr. (The real
// node's auto lets AutoNAT decide; in a lab of private addresses it cannot
// confirm any, so the node reserves as a private one does.)
export function isPrivate (cfg) {
	if (cfg.reachability === 'public') return false
	if (cfg.reachability === 'private') return true
	return !cfg.publicAddr
}

export const isCircuit = ma => ma.toString().includes('/p2p-circuit')

// The relays the node holds a reservation on: those its own addresses go
// through.
export function reservedRelays (node) {
	const out = new Set()
	for (const ma of node.getMultiaddrs()) {
		const m = /\/p2p\/([^/]+)\/p2p-circuit/.exec(ma.toString())
		if (m) out.add(m[1])
	}
	return out
}

// AutoRelay on connected peers: from bootMs after start, every peer that
// identifies with the relay protocol over a direct connection gets a
// reservation request, up to MAX_RELAYS. onReserved(peerId) is called for
// each success.
export function startAutoRelay (ctx, { bootMs, onReserved }) {
	const node = ctx.node
	const tm = node.components?.transportManager
	if (!tm) throw new Error('libp2p has no transport manager to listen on circuits')
	const pending = new Set()
	let booted = false

	const consider = async (peerId) => {
		const id = peerId.toString()
		if (!booted || ctx.stopSignal.aborted || pending.has(id)) return
		const held = reservedRelays(node)
		if (held.has(id) || held.size + pending.size >= MAX_RELAYS) return
		const direct = node.getConnections(peerId).some(c => c.status === 'open' && !isCircuit(c.remoteAddr))
		if (!direct) return
		let protocols = []
		try {
			protocols = (await node.peerStore.get(peerId)).protocols
		} catch {}
		if (!protocols.includes(RELAY_V2_HOP_CODEC)) return
		pending.add(id)
		try {
			await tm.listen([multiaddr(`/p2p/${id}/p2p-circuit`)])
			ctx.log('info', `relay reservation on ${id} succeeded`)
			onReserved(id)
		} catch (err) {
			ctx.log('debug', `relay reservation on ${id} failed: ${err.message}`)
		} finally {
			pending.delete(id)
		}
	}

	node.addEventListener('peer:identify', evt => { consider(evt.detail.peerId) })
	const timer = setTimeout(() => {
		booted = true
		for (const c of node.getConnections()) consider(c.remotePeer)
	}, bootMs)
	ctx.stopSignal.addEventListener('abort', () => clearTimeout(timer), { once: true })
}

// A stream to a peer as go-libp2p's host opens one with
// WithAllowLimitedConn: on an open connection to it, a limited (relayed)
// one too when it has no other, and a dial only without any. js-libp2p's
// dial never takes a limited connection: it would open another circuit
// through the same relay for every stream, which the relay or the target
// may close as a duplicate while it opens ("Remote closed connection
// during opening"), and each would get the relay's limits anew.
export async function streamTo (node, peerId, protocol, options) {
	const open = node.getConnections(peerId).filter(c => c.status === 'open')
	if (open.length > 0 && open.every(c => c.limits != null)) {
		return open[0].newStream(protocol, { ...options, runOnLimitedConnection: true })
	}
	return node.dialProtocol(peerId, protocol, { ...options, runOnLimitedConnection: true })
}
