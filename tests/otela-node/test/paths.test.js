// The path between two nodes that cannot dial each other, as the real
// node builds it: a public relay (reachability public), two private nodes
// behind firewalls (OTELA_FAKE_FIREWALL: nothing opens a connection in but
// through a relay) that reserve a slot on it and name it as relay_peer,
// and reach each other through its circuit; the node API's view of that
// path (peers_status, table, holepunch) as the real node answers:
// - through a relay without limits (every OpenTela node's) the relayed
//   connection is Connected, so the punch answers at once, attempts 0;
//   ping, latency and throughput get through;
// - through a limited relay (libp2p's defaults, OTELA_FAKE_RELAY_LIMITED)
//   it is Limited, the punch runs DCUtR and fails (both sides refuse
//   direct connections), probes take the one circuit (no new one per
//   probe), ping and latency get through, 1 MiB of throughput does not
//   (the circuit's 128 KiB);
// - OTELA_FAKE_NO_HOLEPUNCH is the real node at e0591341: its punch always
//   answers `hole punch service not initialized`;
// - a member of the mesh made public (OF_REACHABILITY) relays between two
//   firewalled sites with no relay of their own; libp2p_relaysvc_status
//   says which node relays.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import {
	tmpDir, makeNode, startNode, stopNode, waitHealthy, eventually, api, probe, logOf,
	checkLatencyResult, checkThroughputResult
} from '../testlib/helpers.js'
import fs from 'node:fs'

// cfg.yaml with the keys of the relay's path: reachability, public-addr,
// role.
function writeCfg (node, bootstrap, extra = {}) {
	const lines = [`port: "${node.httpPort}"`, `tcpport: "${node.tcpPort}"`, 'cleanslate: true']
	for (const [k, v] of Object.entries({ reachability: 'auto', ...extra })) lines.push(`${k}: "${v}"`)
	lines.push('bootstrap:', `  static: [ ${bootstrap.map(a => `"${a}"`).join(', ')} ]`, '')
	fs.writeFileSync(node.cfg, lines.join('\n'))
}

const QUICK_RELAY = { OTELA_FAKE_RELAY_BOOT_MS: '200' }

async function mesh (limited) {
	const root = tmpDir(limited ? 'limited' : 'relay')
	const r = await makeNode(root, 'r')
	const a = await makeNode(root, 'a')
	const b = await makeNode(root, 'b')
	writeCfg(r, [], { 'public-addr': '127.0.0.1', reachability: 'public', role: 'relay' })
	writeCfg(a, [r.addr])
	writeCfg(b, [r.addr])
	startNode(r, limited ? { OTELA_FAKE_RELAY_LIMITED: '1' } : {})
	await waitHealthy(r)
	for (const n of [a, b]) startNode(n, { ...QUICK_RELAY, OTELA_FAKE_FIREWALL: '1' })
	for (const n of [a, b]) await waitHealthy(n)
	return { r, a, b }
}

// A counter of GET /metrics: the sum of its series whose labels include
// every one given (the real node's registry, go-libp2p's names).
async function counter (n, name, labels = {}) {
	const text = (await api(n, 'GET', '/metrics')).body.toString('utf8')
	let sum = null
	for (const line of text.split('\n')) {
		const m = /^([a-z0-9_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line)
		if (!m || m[1] !== name) continue
		const have = Object.fromEntries((m[2] ?? '').split(',').filter(Boolean).map(kv => kv.split('=')).map(([k, v]) => [k, JSON.parse(v)]))
		if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum = (sum ?? 0) + Number(m[3])
	}
	return sum
}

const status = async (n, peer) => (await api(n, 'GET', '/v1/dnt/peers_status')).json.peers.find(p => p.id === peer)?.connectedness

describe('a relayed path through a relay without limits', () => {
	let r, a, b
	before(async () => { ({ r, a, b } = await mesh(false)) })
	after(async () => { for (const n of [a, b, r]) await stopNode(n) })

	it('the relay is public and unlimited; the firewalled nodes are private and reserve on it', async () => {
		assert.match(logOf(r), /relay service: unlimited/)
		assert.match(logOf(r), /public: no relay reservations/)
		for (const n of [a, b]) {
			assert.match(logOf(n), /private \(reachability auto, no public-addr\): reserving relay slots/)
			// a private node relays for nobody (go-libp2p's relay manager)
			assert.match(logOf(n), /relay service: off/)
			await eventually(`${n.name} names its relay`, async () => (await api(n, 'GET', '/v1/self')).json.relay_peer === r.peerId)
		}
		const self = (await api(r, 'GET', '/v1/self')).json
		assert.deepEqual(self.role, ['relay'])
		assert.equal(self.public_address, '127.0.0.1')
		assert.equal(self.relay_peer, undefined)
	})

	it('the two reach each other through its circuit, as Connected, and the table names the relay', async () => {
		await eventually('a connected to b', async () => (await status(a, b.peerId)) === 'Connected', 30000)
		const peers = (await api(a, 'GET', '/v1/dnt/peers')).json.peers
		const toB = peers.find(p => p.ID === b.peerId)
		assert.ok(toB.Addrs.some(x => x === `${r.addr}/p2p-circuit/p2p/${b.peerId}` || x === `${r.addr}/p2p-circuit`), JSON.stringify(toB))
		// b's record reaches a by gossip, a little after b reserved
		const rec = await eventually('a\'s table names b\'s relay', async () => {
			const x = (await api(a, 'GET', '/v1/dnt/table')).json[`/${b.peerId}`]
			return x?.relay_peer === r.peerId && x
		})
		assert.equal(rec.connected, true)
		assert.deepEqual(Object.keys(rec), ['id', 'latency', 'privileged', 'owner', 'current_offering', 'role', 'status',
			'available_offering', 'service', 'last_seen', 'version', 'public_address', 'public_port', 'hardware',
			'relay_peer', 'connected', 'load', 'capabilities'], 'the real node\'s record')
	})

	it('ping, latency and throughput get through the circuit', async () => {
		checkLatencyResult(await probe(a, { target: b.peerId, kind: 'libp2p_ping', count: 3 }), { kind: 'libp2p_ping', target: b.peerId, count: 3 })
		checkLatencyResult(await probe(a, { target: b.peerId, kind: 'latency', count: 3 }), { kind: 'latency', target: b.peerId, count: 3 })
		checkThroughputResult(await probe(b, { target: a.peerId, kind: 'throughput', count: 1, bytes: 1048576 }), { target: a.peerId, count: 1, bytes: 1048576 })
	})

	it('GET /metrics counts the circuit where it was dialled and on the relay, as the real node\'s registry', async () => {
		const res = await api(a, 'GET', '/metrics')
		assert.equal(res.status, 200)
		assert.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
		// one end dialled the other through the relay (which one is the
		// race of their two starts: each dials the peer it learns): an
		// outbound circuit there; at the other end the accepted circuit
		// is an inbound "tcp" one (go-libp2p's circuit transport labels
		// only its dials), so no inbound circuit anywhere; direct TCP to
		// the relay from both
		const opened = (n, labels) => counter(n, 'libp2p_swarm_connections_opened_total', labels)
		const dialled = (await opened(a, { dir: 'outbound', transport: 'p2p-circuit' })) >= 1 ? a : b
		const accepted = dialled === a ? b : a
		assert.ok(await opened(dialled, { dir: 'outbound', transport: 'p2p-circuit' }) >= 1, 'a circuit dialled at one end')
		for (const n of [a, b]) {
			assert.equal(await opened(n, { dir: 'inbound', transport: 'p2p-circuit' }), null, `${n.name}: an accepted circuit is counted as tcp`)
			assert.ok(await opened(n, { dir: 'outbound', transport: 'tcp' }) >= 1, `${n.name}: its TCP connection to the relay`)
		}
		assert.ok(await opened(accepted, { dir: 'inbound', transport: 'tcp' }) >= 1)
		assert.equal(await counter(r, 'libp2p_swarm_connections_opened_total', { transport: 'p2p-circuit' }), null, 'the relay ends no circuit')
		assert.ok(await counter(r, 'libp2p_relaysvc_connections_total', { type: 'opened' }) >= 1)
		assert.equal(await counter(r, 'libp2p_relaysvc_reservations_total', { type: 'opened' }), 2)
		assert.equal(await counter(a, 'libp2p_relaysvc_connections_total', { type: 'opened' }), 0, 'a relays nothing')
		assert.equal(await counter(r, 'libp2p_relaysvc_status'), 1, 'the public relay runs its relay service')
		assert.equal(await counter(a, 'libp2p_relaysvc_status'), 0, 'a private node runs none')
		assert.equal(await counter(a, 'libp2p_autorelay_status'), 1, 'a private node runs AutoRelay')
		assert.equal(await counter(r, 'libp2p_autorelay_status'), 0, 'a public one does not')
		// the hole punch tracer's series are there from the start, as go-libp2p's
		assert.equal(typeof await counter(r, 'libp2p_holepunch_outcomes_total', { side: 'initiator', num_attempts: '4', outcome: 'success' }), 'number')
		// what the relay carries grows by what goes through the circuit
		const before = await counter(r, 'libp2p_relaysvc_data_transferred_bytes_total')
		checkThroughputResult(await probe(a, { target: b.peerId, kind: 'throughput', count: 1, bytes: 1048576 }), { target: b.peerId, count: 1, bytes: 1048576 })
		assert.ok(await counter(r, 'libp2p_relaysvc_data_transferred_bytes_total') - before >= 1048576)
	})

	it('the punch answers Connected before any attempt, as the real node for a pair its relay joins', async () => {
		const res = await api(a, 'POST', '/v1/probe/holepunch', { target: b.peerId })
		assert.deepEqual(res.json, { ok: true, target: b.peerId, connectedness: 'Connected', attempts: 0 })
	})
})

describe('a relayed path through a limited relay', () => {
	let r, a, b
	before(async () => { ({ r, a, b } = await mesh(true)) })
	after(async () => { for (const n of [a, b, r]) await stopNode(n) })

	it('the circuit is Limited; the punch runs DCUtR and fails, both sides refusing direct connections', async () => {
		assert.match(logOf(r), /relay service: limited \(131072 bytes, 120 s per circuit/)
		await eventually('a connected to b', async () => (await status(a, b.peerId)) === 'Limited', 30000)
		// the punch either node started on its inbound relayed connection
		// may still run: another one is refused meanwhile, as go-libp2p's
		const res = await eventually('a punch of its own', async () => {
			const r = (await api(a, 'POST', '/v1/probe/holepunch', { target: b.peerId, attempts: 1, wait_ms: 10 })).json
			return r.last_error !== 'another hole punching attempt to this peer is active' && r
		}, 30000)
		assert.deepEqual(res, { ok: false, target: b.peerId, connectedness: 'Limited', attempts: 1, last_error: `all retries for hole punch with peer ${b.peerId} failed` })
		// go-libp2p's hole punch tracer: the initiator's failure after its
		// third attempt, the receiver's after each dial, no success
		assert.ok(await counter(a, 'libp2p_holepunch_outcomes_total', { side: 'initiator', num_attempts: '3', outcome: 'failed' }) >= 1)
		assert.ok(await counter(b, 'libp2p_holepunch_outcomes_total', { side: 'receiver', num_attempts: '1', outcome: 'failed' }) >= 1)
		for (const n of [a, b]) assert.equal(await counter(n, 'libp2p_holepunch_outcomes_total', { outcome: 'success' }), 0)
	})

	it('probes take the one limited circuit (go-libp2p\'s WithAllowLimitedConn): the relay opens no circuit per probe', async () => {
		const opened = () => counter(r, 'libp2p_relaysvc_connections_total', { type: 'opened' })
		const before = await opened()
		for (let i = 0; i < 5; i++) {
			checkLatencyResult(await probe(a, { target: b.peerId, kind: 'libp2p_ping', count: 1 }), { kind: 'libp2p_ping', target: b.peerId, count: 1 })
			checkLatencyResult(await probe(b, { target: a.peerId, kind: 'latency', count: 1 }), { kind: 'latency', target: a.peerId, count: 1 })
		}
		assert.equal(await opened(), before)
		assert.equal(await status(a, b.peerId), 'Limited')
	})

	it('ping and latency get through, 1 MiB of throughput does not (128 KiB per circuit)', async () => {
		checkLatencyResult(await probe(a, { target: b.peerId, kind: 'libp2p_ping', count: 3 }), { kind: 'libp2p_ping', target: b.peerId, count: 3 })
		checkLatencyResult(await probe(a, { target: b.peerId, kind: 'latency', count: 3 }), { kind: 'latency', target: b.peerId, count: 3 })
		const tp = await probe(a, { target: b.peerId, kind: 'throughput', count: 1, bytes: 1048576, timeout_ms: 20000 })
		assert.equal(tp.ok, false, JSON.stringify(tp))
		assert.match(tp.error, /^no successful iterations: /)
	})
})

describe('the real node at e0591341: no hole punch service', () => {
	let x, y
	before(async () => {
		const root = tmpDir('nopunch')
		x = await makeNode(root, 'x')
		y = await makeNode(root, 'y')
		writeCfg(x, [])
		writeCfg(y, [x.addr])
		startNode(x, { OTELA_FAKE_NO_HOLEPUNCH: '1' })
		startNode(y, { OTELA_FAKE_NO_HOLEPUNCH: '1' })
		for (const n of [x, y]) await waitHealthy(n)
	})
	after(async () => { for (const n of [x, y]) await stopNode(n) })

	it('says so at start, and every punch to a peer not Connected fails with the real node\'s words', async () => {
		assert.match(logOf(x), /WARN host is not \*basichost\.BasicHost; hole punching disabled/)
		await eventually('y connected to x', async () => (await status(y, x.peerId)) === 'Connected')
		const direct = (await api(y, 'POST', '/v1/probe/holepunch', { target: x.peerId })).json
		assert.deepEqual(direct, { ok: true, target: x.peerId, connectedness: 'Connected', attempts: 0 })
		await stopNode(y)
		const gone = (await api(x, 'POST', '/v1/probe/holepunch', { target: y.peerId, attempts: 3, wait_ms: 10 })).json
		assert.deepEqual(gone, { ok: false, target: y.peerId, connectedness: 'NotConnected', attempts: 3, last_error: 'hole punch service not initialized' })
		assert.equal(await counter(x, 'libp2p_holepunch_outcomes_total'), null, 'no service, no tracer: no hole punch counters')
	})
})

// The relay a member of the mesh: two firewalled sites and one public
// member, every node's bootstrap list every other node's direct address
// (as the bench writes it), no relay of its own. The member is public
// because its machine says so (OF_REACHABILITY, which the bench passes
// from NETPROF_OF_REACHABILITY); the firewalled nodes are private,
// reserve a slot on the member they were told of, announce their circuit
// through it, and every pair between the sites gets through that circuit.
describe('a public member of the mesh relays between two firewalled sites', () => {
	let p
	const fw = []
	before(async () => {
		const root = tmpDir('member')
		p = await makeNode(root, 'p')
		for (const name of ['a1', 'a2', 'b1', 'b2']) fw.push(await makeNode(root, name))
		const all = [p, ...fw]
		for (const n of all) writeCfg(n, all.filter(o => o !== n).map(o => o.addr), { reachability: 'private' })
		startNode(p, { OF_REACHABILITY: 'public' })
		for (const n of fw) startNode(n, { ...QUICK_RELAY, OTELA_FAKE_FIREWALL: '1' })
		for (const n of all) await waitHealthy(n)
	})
	after(async () => { for (const n of [...fw, p]) await stopNode(n) })

	it('each firewalled node reserves on the member and names it as its relay', async () => {
		assert.match(logOf(p), /relay service: unlimited/)
		assert.equal(await counter(p, 'libp2p_relaysvc_status'), 1, 'the public member relays')
		for (const n of fw) {
			assert.equal(await counter(n, 'libp2p_relaysvc_status'), 0, `${n.name}, private, relays for nobody`)
			await eventually(`${n.name} names p as its relay`, async () => (await api(n, 'GET', '/v1/self')).json.relay_peer === p.peerId, 30000)
		}
	})

	it('every pair between the sites gets through the member\'s circuit', async () => {
		for (const [s, t] of [[fw[0], fw[2]], [fw[3], fw[1]], [fw[1], fw[2]], [fw[2], fw[0]]]) {
			await eventually(`${s.name} connected to ${t.name}`, async () => (await status(s, t.peerId)) === 'Connected', 30000)
			checkLatencyResult(await probe(s, { target: t.peerId, kind: 'libp2p_ping', count: 3 }), { kind: 'libp2p_ping', target: t.peerId, count: 3 })
			const toT = (await api(s, 'GET', '/v1/dnt/peers')).json.peers.find(x => x.ID === t.peerId)
			assert.ok(toT.Addrs.some(x => x.startsWith(`${p.addr}/p2p-circuit`)), JSON.stringify(toT))
		}
		assert.ok(await counter(p, 'libp2p_relaysvc_connections_total', { type: 'opened' }) >= 4)
	})
})
