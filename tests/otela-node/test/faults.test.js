// The OTELA_FAKE_* fault switches: each does what docs/otela-node.md says.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import {
	tmpDir, makeNode, writeConfig, startNode, stopNode, waitHealthy, eventually, api, probe, run,
	checkLatencyResult, checkFailure, logOf, peerIdsIn
} from '../testlib/helpers.js'

const all = []

describe('fault switches', () => {
	let n, noHttp, sick, slow, slowStartedAt

	before(async () => {
		const root = tmpDir('faults')
		n = await makeNode(root, 'normal')
		noHttp = await makeNode(root, 'nohttp')
		sick = await makeNode(root, 'sick')
		slow = await makeNode(root, 'slow')
		all.push(n, noHttp, sick, slow)
		writeConfig(n, [])
		for (const f of [noHttp, sick, slow]) writeConfig(f, [n.addr])
		startNode(n)
		startNode(noHttp, { OTELA_FAKE_NO_HTTP: '1', OTELA_FAKE_PING_DROP: '0.5' })
		startNode(sick, { OTELA_FAKE_NEVER_HEALTHY: '1' })
		slowStartedAt = Date.now()
		startNode(slow, { OTELA_FAKE_START_DELAY_MS: '1500' })
		await waitHealthy(n)
		await waitHealthy(noHttp)
		// The sick node never becomes healthy: wait until it is connected
		// and its API answers (it comes up after the dials and the API
		// delay, so being connected is not enough).
		await eventually('normal node sees the others', async () => {
			const ids = peerIdsIn((await api(n, 'GET', '/v1/dnt/table')).json)
			return [noHttp, sick].every(x => ids.has(x.peerId))
		})
		await eventually('sick node\'s API answers', async () => (await api(sick, 'GET', '/v1/health')).status === 503)
	})

	after(async () => {
		for (const x of all) await stopNode(x)
	})

	it('OTELA_FAKE_NEVER_HEALTHY: /v1/health stays 503, locally and over libp2p', async () => {
		for (let i = 0; i < 5; i++) {
			const r = await api(sick, 'GET', '/v1/health')
			assert.equal(r.status, 503)
		}
		const lat = await probe(n, { target: sick.peerId, kind: 'latency', count: 3 })
		checkFailure(lat, { count: 3 })
		assert.match(lat.error, /HTTP 503/)
		const ping = await probe(n, { target: sick.peerId, kind: 'libp2p_ping', count: 3 })
		checkLatencyResult(ping, { kind: 'libp2p_ping', target: sick.peerId, count: 3 })
		assert.equal((await api(sick, 'GET', '/v1/health')).status, 503)
	})

	it('OTELA_FAKE_NO_HTTP: HTTP-over-libp2p fails while ping answers', async () => {
		for (const kind of ['latency', 'throughput']) {
			const r = await probe(n, { target: noHttp.peerId, kind, count: 2, bytes: 4096 })
			checkFailure(r, { count: 2 })
			assert.match(r.error, /stream reset|failed to dial/)
		}
		// Its own local API still works.
		assert.equal((await api(noHttp, 'GET', '/v1/health')).status, 200)
		// And it can still probe others over HTTP-over-libp2p.
		const out = await probe(noHttp, { target: n.peerId, kind: 'latency', count: 2 })
		checkLatencyResult(out, { kind: 'latency', target: n.peerId, count: 2 })
	})

	it('OTELA_FAKE_PING_DROP=0.5: exactly every second ping fails', async () => {
		const r = await probe(n, { target: noHttp.peerId, kind: 'libp2p_ping', count: 10 })
		const m = checkLatencyResult(r, { kind: 'libp2p_ping', target: noHttp.peerId, count: 10 })
		assert.equal(m.failed_samples, 5)
		assert.equal(m.samples_ns.length, 5)
		assert.equal(m.last_error, undefined, 'a field the real node never sends')
	})

	it('OTELA_FAKE_START_DELAY_MS: health is 200 only after the delay', async () => {
		await waitHealthy(slow)
		assert.ok(Date.now() - slowStartedAt >= 1500, 'healthy before the start delay elapsed')
		assert.match(logOf(slow), /OTELA_FAKE_START_DELAY_MS: waiting 1500 ms/)
	})

	it('rejects a bad fault value at start', async () => {
		const r = await run(['start', '--config', n.cfg, '--config-dir', n.dir], { env: { OTELA_FAKE_PING_DROP: '2' } })
		assert.equal(r.code, 1)
		assert.match(r.stderr, /OTELA_FAKE_PING_DROP=2/)
	})
})

describe('OTELA_FAKE_DIAL_WAIT_MS', () => {
	let n, silent
	const sockets = []

	after(async () => {
		await stopNode(n)
		for (const s of sockets) s.destroy()
		silent?.close()
	})

	it('a static peer that never answers holds the start only that long', async () => {
		const root = tmpDir('dialwait')
		// accepts the connection and says nothing, as a peer whose
		// firewall drops the dial would leave it hanging
		silent = net.createServer(s => sockets.push(s))
		const port = await new Promise(resolve => silent.listen(0, '127.0.0.1', () => resolve(silent.address().port)))
		const peer = await makeNode(root, 'peer')
		n = await makeNode(root, 'waiting')
		const addr = `/ip4/127.0.0.1/tcp/${port}/p2p/${peer.peerId}`
		writeConfig(n, [addr])
		startNode(n, { OTELA_FAKE_DIAL_WAIT_MS: '300' })
		await waitHealthy(n)
		assert.match(logOf(n), new RegExp(`static peer ${addr}: no connection within 300 ms, starting without it`))
	})
})
