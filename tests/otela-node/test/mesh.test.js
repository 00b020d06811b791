// Three stand-in nodes on loopback: every probe kind between every ordered
// pair, the metric shapes of the contract, the HTTP API's 400 cases, and the
// `otela probe` CLI.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import {
	tmpDir, makeNode, writeConfig, startNode, stopNode, waitHealthy, eventually, api, probe, run,
	peerIdsIn, checkLatencyResult, checkThroughputResult, checkFailure, logOf
} from '../testlib/helpers.js'

const nodes = []

describe('three-node mesh', () => {
	before(async () => {
		const root = tmpDir('mesh')
		for (const name of ['a', 'b', 'c']) nodes.push(await makeNode(root, name))
		const [a, b, c] = nodes
		// a and b list every other node, as the bench does; c lists only a
		// (as JSON) and must still reach b through peer exchange.
		writeConfig(a, [b.addr, c.addr])
		writeConfig(b, [a.addr, c.addr])
		writeConfig(c, [a.addr], { asJson: true })
		// a alone knows the connect kind, beyond the real node
		for (const n of nodes) startNode(n, n === a ? { OTELA_KIND_CONNECT: '1' } : {})
		for (const n of nodes) await waitHealthy(n)
	})

	after(async () => {
		for (const n of nodes) await stopNode(n)
	})

	it('answers GET /v1/health with 200', async () => {
		for (const n of nodes) {
			const r = await api(n, 'GET', '/v1/health')
			assert.equal(r.status, 200)
		}
	})

	it('converges: every node lists every other node in /v1/dnt/table', async () => {
		for (const n of nodes) {
			await eventually(`${n.name} sees all peers`, async () => {
				const r = await api(n, 'GET', '/v1/dnt/table')
				assert.equal(r.status, 200)
				const ids = peerIdsIn(r.json)
				return nodes.every(o => o === n || ids.has(o.peerId))
			})
			const table = (await api(n, 'GET', '/v1/dnt/table')).json
			// the real table's shape: keyed "/<id>", not listing itself
			for (const o of nodes.filter(x => x !== n)) {
				assert.equal(table[`/${o.peerId}`].id, o.peerId)
				assert.equal(table[`/${o.peerId}`].connected, true)
			}
			assert.equal(table[`/${n.peerId}`], undefined)
		}
	})

	it('runs all three kinds between every ordered pair', async () => {
		for (const src of nodes) {
			for (const dst of nodes.filter(x => x !== src)) {
				const what = `${src.name}->${dst.name}`
				const ping = await probe(src, { target: dst.peerId, kind: 'libp2p_ping', count: 5 })
				const pm = checkLatencyResult(ping, { kind: 'libp2p_ping', target: dst.peerId, count: 5 })
				assert.equal(pm.failed_samples, 0, what)
				const lat = await probe(src, { target: dst.peerId, kind: 'latency', count: 4, timeout_ms: 30000 })
				const lm = checkLatencyResult(lat, { kind: 'latency', target: dst.peerId, count: 4 })
				assert.equal(lm.failed_samples, 0, what)
				assert.equal(lat.config.timeout_ms, 30000)
				const tp = await probe(src, { target: dst.peerId, kind: 'throughput', count: 2, bytes: 1048576 })
				const tm = checkThroughputResult(tp, { target: dst.peerId, count: 2, bytes: 1048576 })
				assert.equal(tm.failed_samples, 0, what)
			}
		}
	})

	it('keeps HTTP-over-libp2p streams alive across samples and probe runs, as the real node', async () => {
		const [a, , c] = nodes
		const streams = () => logOf(c).split('\n').filter(l => / HTTP-over-libp2p stream \d+ from /.test(l) && l.endsWith(` from ${a.peerId}`)).length
		for (let i = 0; i < 2; i++) {
			const lat = await probe(a, { target: c.peerId, kind: 'latency', count: 5 })
			assert.equal(checkLatencyResult(lat, { kind: 'latency', target: c.peerId, count: 5 }).failed_samples, 0)
		}
		const tp = await probe(a, { target: c.peerId, kind: 'throughput', count: 3, bytes: 65536 })
		assert.equal(checkThroughputResult(tp, { target: c.peerId, count: 3, bytes: 65536 }).failed_samples, 0)
		// 13 requests (and those of the test before), one stream
		assert.equal(streams(), 1, logOf(c))
	})

	it('applies the defaults: count 20, timeout_ms 60000, throughput bytes 10 MiB', async () => {
		const [a, b] = nodes
		const r = await probe(a, { target: b.peerId, kind: 'libp2p_ping' })
		checkLatencyResult(r, { kind: 'libp2p_ping', target: b.peerId, count: 20 })
		assert.equal(r.config.timeout_ms, 60000)
		const t = await probe(a, { target: b.peerId, kind: 'throughput', count: 1 })
		checkThroughputResult(t, { target: b.peerId, count: 1, bytes: 10485760 })
	})

	it('answers 400 for bad JSON, a missing or undecodable target, an unknown kind', async () => {
		const [a, b] = nodes
		const cases = [
			['{not json', /^invalid JSON body: /],
			['[1,2]', /^invalid JSON body: /],
			[{ kind: 'latency' }, /^target is required$/],
			[{ target: '', kind: 'latency' }, /^target is required$/],
			[{ target: 'not-a-peer-id', kind: 'latency' }, /^invalid target peer id: /],
			[{ target: b.peerId, kind: 'icmp' }, /^unknown kind: icmp$/],
			[{ target: b.peerId }, /^unknown kind: $/],
			[{ target: b.peerId, kind: 'latency', count: 'ten' }, /^invalid JSON body: /],
			// Go decodes timeout_ms into an int: a fraction is a 400
			[{ target: b.peerId, kind: 'latency', timeout_ms: 1234.5 }, /^invalid JSON body: json: cannot unmarshal number 1234.5 /]
		]
		for (const [body, want] of cases) {
			const r = await api(a, 'POST', '/v1/probe/run', body)
			assert.equal(r.status, 400, JSON.stringify(body))
			assert.match(r.json.error, want)
		}
	})

	it('serves /v1/probe/echo with N zero bytes and rejects bad N', async () => {
		const [a] = nodes
		const r = await api(a, 'GET', '/v1/probe/echo?bytes=100000')
		assert.equal(r.status, 200)
		assert.equal(r.headers['content-length'], '100000')
		assert.equal(r.body.length, 100000)
		assert.ok(r.body.every(x => x === 0))
		const z = await api(a, 'GET', '/v1/probe/echo?bytes=0')
		assert.equal(z.status, 200)
		assert.equal(z.headers['content-length'], '0')
		for (const q of ['', '?bytes=', '?bytes=-1', '?bytes=abc', '?bytes=1073741825', '?bytes=1.5']) {
			const bad = await api(a, 'GET', `/v1/probe/echo${q}`)
			assert.equal(bad.status, 400, q)
			assert.equal(typeof bad.json.error, 'string')
		}
		const nope = await api(a, 'GET', '/v1/nope')
		assert.equal(nope.status, 404)
		assert.equal(nope.body.toString(), '404 page not found', 'plain text, as gin')
	})

	it('reports an unknown peer as ok:false with the failure shape', async () => {
		const [a] = nodes
		const stranger = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
		for (const kind of ['libp2p_ping', 'latency', 'throughput']) {
			const r = await probe(a, { target: stranger, kind, count: 3, bytes: 1024, timeout_ms: 5000 })
			checkFailure(r, { count: 3 })
			assert.equal(r.kind, kind)
			assert.equal(r.target, stranger)
		}
	})

	it('reports a direct connection as Connected in /v1/probe/holepunch, before any attempt, as the real node', async () => {
		const [a, b] = nodes
		const r = await api(a, 'POST', '/v1/probe/holepunch', { target: b.peerId })
		assert.equal(r.status, 200)
		assert.deepEqual(r.json, { ok: true, target: b.peerId, connectedness: 'Connected', attempts: 0 })
		assert.equal((await api(a, 'POST', '/v1/probe/holepunch', { target: 'x' })).status, 400)
		assert.equal((await api(a, 'POST', '/v1/probe/holepunch', '{')).status, 400)
		const stranger = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
		const s = await api(a, 'POST', '/v1/probe/holepunch', { target: stranger, attempts: 2, wait_ms: 10 })
		assert.deepEqual(s.json, { ok: false, target: stranger, connectedness: 'NotConnected', attempts: 2, last_error: 'failed to open hole-punching stream: no usable connection to peer' })
	})

	it('otela probe prints one JSON line and exits 0 iff ok', async () => {
		const [a, b] = nodes
		const good = await run(['probe', '--target', b.peerId, '--kind', 'latency', '--count', '3', '--config', a.cfg, '--timeout', '20s'])
		assert.equal(good.code, 0, good.stderr)
		const lines = good.stdout.trimEnd().split('\n')
		assert.equal(lines.length, 1)
		const res = JSON.parse(lines[0])
		checkLatencyResult(res, { kind: 'latency', target: b.peerId, count: 3 })
		assert.equal(res.config.timeout_ms, 20000)

		const tp = await run(['probe', '--target=' + b.peerId, '--kind=throughput', '--count=1', '--bytes=65536', '--config=' + a.cfg])
		assert.equal(tp.code, 0, tp.stderr)
		checkThroughputResult(JSON.parse(tp.stdout), { target: b.peerId, count: 1, bytes: 65536 })

		const stranger = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
		const bad = await run(['probe', '--target', stranger, '--kind', 'libp2p_ping', '--count', '2', '--config', a.cfg, '--timeout', '5s'])
		assert.equal(bad.code, 1)
		checkFailure(JSON.parse(bad.stdout), { count: 2 })

		const kind = await run(['probe', '--target', b.peerId, '--kind', 'nope', '--config', a.cfg])
		assert.equal(kind.code, 1)
		assert.match(JSON.parse(kind.stdout).error, /unknown kind/)

		const usage = await run(['probe', '--target', b.peerId, '--kind', 'latency', '--config', a.cfg, '--timeout', 'soon'])
		assert.equal(usage.code, 1)
		const missing = await run(['probe', '--kind', 'latency', '--config', a.cfg])
		assert.equal(missing.code, 1)
		assert.match(missing.stderr, /missing --target/)
	})

	it('times cold connections with OTELA_KIND_CONNECT=1, and without it answers as the real node: unknown kind', async () => {
		const [a, b] = nodes
		const r = await probe(a, { target: b.peerId, kind: 'connect', count: 3 })
		const m = checkLatencyResult(r, { kind: 'connect', target: b.peerId, count: 3 })
		assert.equal(m.failed_samples, 0)
		// the median sample split at the ping stream's opening
		assert.ok(m.dial_ms > 0 && m.first_rtt_ms > 0, JSON.stringify(m))
		assert.ok(Math.abs(m.dial_ms + m.first_rtt_ms - m.p50_ms) < 1e-6, JSON.stringify(m))
		// the pair is connected again afterwards: the mesh's probes go on
		const ping = await probe(a, { target: b.peerId, kind: 'libp2p_ping', count: 2 })
		assert.equal(checkLatencyResult(ping, { kind: 'libp2p_ping', target: b.peerId, count: 2 }).failed_samples, 0)
		const no = await api(b, 'POST', '/v1/probe/run', { target: a.peerId, kind: 'connect', count: 1 })
		assert.equal(no.status, 400)
		assert.equal(no.json.error, 'unknown kind: connect')
	})

	it('logged the start of every node', () => {
		for (const n of nodes) assert.match(logOf(n), new RegExp(`otela stand-in ${n.peerId} listening`))
	})
})
