// CLI behaviour and node lifecycle: usage errors, identity persistence,
// prompt exit on SIGTERM/SIGINT, and probes to a peer that went away.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import {
	tmpDir, makeNode, writeConfig, startNode, stopNode, waitHealthy, eventually, api, probe, run,
	checkFailure, peerIdsIn, freePort, logOf
} from '../testlib/helpers.js'

describe('otela CLI', () => {
	it('prints help with exit 0', async () => {
		const cases = [['--help'], ['help'], ['start', '--help']]
		const results = await Promise.all(cases.map(args => run(args)))
		for (const r of results) {
			assert.equal(r.code, 0)
			assert.match(r.stdout, /usage: otela <command>/)
		}
	})

	it('exits 1 on usage errors, as the real (cobra) one', async () => {
		const cases = [[], ['frobnicate'], ['init', '--bogus', 'x'], ['init'], ['peer-id', '--config-dir'], ['start'], ['probe', '--kind', 'latency']]
		const results = await Promise.all(cases.map(args => run(args)))
		for (const [i, r] of results.entries()) {
			const args = cases[i]
			assert.equal(r.code, 1, args.join(' '))
			assert.notEqual(r.stderr, '')
			assert.equal(r.stdout, '')
		}
	})

	it('init creates a 0600 RSA identity in D/keys/id (Qm..., as the real init) that init keeps and peer-id repeats', async () => {
		const dir = path.join(tmpDir('id'), 'nested', 'dir')
		assert.equal((await run(['init', '--config-dir', dir])).code, 0)
		assert.deepEqual(fs.readdirSync(dir), ['keys'])
		assert.deepEqual(fs.readdirSync(path.join(dir, 'keys')), ['id'], 'the real node\'s key path, D/keys/id')
		assert.equal(fs.statSync(path.join(dir, 'keys', 'id')).mode & 0o777, 0o600)
		const first = await run(['peer-id', '--config-dir', dir])
		assert.equal(first.code, 0)
		assert.match(first.stdout, /^Qm[1-9A-HJ-NP-Za-km-z]{44}\n$/)
		const ed = tmpDir('ed')
		assert.equal((await run(['init', '--config-dir', ed], { env: { OTELA_FAKE_KEY: 'ed25519' } })).code, 0)
		assert.match((await run(['peer-id', '--config-dir', ed])).stdout, /^12D3KooW[1-9A-HJ-NP-Za-km-z]{44}\n$/)
		assert.equal((await run(['init', '--config-dir', dir])).code, 0)
		assert.equal((await run(['peer-id', '--config-dir', dir])).stdout, first.stdout)
		const other = tmpDir('id2')
		assert.equal((await run(['init', '--config-dir', other])).code, 0)
		assert.notEqual((await run(['peer-id', '--config-dir', other])).stdout, first.stdout)
	})

	it('peer-id, computed without libp2p, is the PeerID libp2p derives from the key file', async () => {
		const { privateKeyFromProtobuf } = await import('@libp2p/crypto/keys')
		const { peerIdFromPrivateKey } = await import('@libp2p/peer-id')
		for (const [name, keyType] of [['a', 'rsa'], ['b', 'rsa'], ['c', 'ed25519']]) {
			const dir = tmpDir(`pid-${name}`)
			assert.equal((await run(['init', '--config-dir', dir], { env: { OTELA_FAKE_KEY: keyType } })).code, 0)
			const key = privateKeyFromProtobuf(new Uint8Array(fs.readFileSync(path.join(dir, 'keys', 'id'))))
			const printed = (await run(['peer-id', '--config-dir', dir])).stdout.trim()
			assert.equal(printed, peerIdFromPrivateKey(key).toString())
		}
	})

	it('a key file whose public half does not match its seed is refused', async () => {
		const dir = tmpDir('pid-bad')
		assert.equal((await run(['init', '--config-dir', dir], { env: { OTELA_FAKE_KEY: 'ed25519' } })).code, 0)
		const file = path.join(dir, 'keys', 'id')
		const bytes = fs.readFileSync(file)
		bytes[bytes.length - 1] ^= 1
		fs.writeFileSync(file, bytes)
		const r = await run(['peer-id', '--config-dir', dir])
		assert.equal(r.code, 1)
		assert.match(r.stderr, /is not a libp2p private key \(public key does not match its seed\)/)
	})

	it('peer-id and start without init fail with a hint', async () => {
		const dir = tmpDir('empty')
		const r = await run(['peer-id', '--config-dir', dir])
		assert.equal(r.code, 1)
		assert.match(r.stderr, /otela init --config-dir/)
		fs.writeFileSync(path.join(dir, 'cfg.yaml'), `port: "${await freePort()}"\ntcpport: "${await freePort()}"\n`)
		const s = await run(['start', '--config', path.join(dir, 'cfg.yaml'), '--config-dir', dir])
		assert.equal(s.code, 1)
		assert.match(s.stderr, /otela init/)
	})

	it('probe exits 1 when no node is listening', async () => {
		const dir = tmpDir('nonode')
		const cfg = path.join(dir, 'cfg.yaml')
		fs.writeFileSync(cfg, `port: "${await freePort()}"\n`)
		const r = await run(['probe', '--target', '12D3KooWHt2eVLhDBhNJsE8AxMfdcn776hrBwKkYmhk6CS2dyqxb', '--kind', 'latency', '--config', cfg])
		assert.equal(r.code, 1)
		assert.match(r.stderr, /cannot reach the node/)
	})
})

describe('node lifecycle', () => {
	it('keeps its PeerID across restarts, exits promptly on SIGTERM/SIGINT, and a stopped peer probes as ok:false', async () => {
		const root = tmpDir('life')
		const hub = await makeNode(root, 'hub')
		const x = await makeNode(root, 'x')
		writeConfig(hub, [])
		writeConfig(x, [hub.addr])
		startNode(hub)
		try {
			await waitHealthy(hub)
			for (let round = 0; round < 2; round++) {
				startNode(x)
				await waitHealthy(x)
				const self = await api(x, 'GET', '/v1/self')
				assert.equal(self.json.id, x.peerId)
				await eventually('hub sees x', async () => peerIdsIn((await api(hub, 'GET', '/v1/dnt/table')).json).has(x.peerId))
				const ping = await probe(hub, { target: x.peerId, kind: 'libp2p_ping', count: 3 })
				assert.equal(ping.ok, true, ping.error)
				let stopped
				if (round === 0) {
					stopped = await stopNode(x)
				} else {
					const t0 = Date.now()
					x.child.kill('SIGINT')
					stopped = { ...(await x.exited), ms: Date.now() - t0 }
				}
				assert.equal(stopped.code, 0, `exit ${JSON.stringify(stopped)}`)
				assert.ok(stopped.ms < 3000, `took ${stopped.ms} ms to exit (OTELA_FAKE_STOP_MS=200)`)
				assert.equal((await run(['peer-id', '--config-dir', x.dir])).stdout.trim(), x.peerId)
			}
			for (const kind of ['libp2p_ping', 'latency', 'throughput']) {
				const r = await probe(hub, { target: x.peerId, kind, count: 2, bytes: 1024, timeout_ms: 5000 })
				checkFailure(r, { count: 2 })
				assert.match(r.error, /failed to dial/)
			}
			const table = (await api(hub, 'GET', '/v1/dnt/table')).json
			assert.equal(peerIdsIn(table).has(x.peerId), false, 'the real table lists connected peers only')
		} finally {
			await stopNode(x)
			await stopNode(hub)
		}
	})

	it('runs on without an API when its HTTP port is taken, as the real node', async () => {
		const root = tmpDir('busy')
		const a = await makeNode(root, 'a')
		const b = await makeNode(root, 'b')
		writeConfig(a, [])
		b.httpPort = a.httpPort
		writeConfig(b, [])
		startNode(a)
		try {
			await waitHealthy(a)
			startNode(b)
			await eventually('b says its API is off', async () => /running without it/.test(logOf(b)))
			assert.equal(b.child.exitCode, null, 'b still runs')
			assert.equal((await api(a, 'GET', '/v1/self')).json.id, a.peerId, 'the port answers for a')
		} finally {
			await stopNode(b)
			await stopNode(a)
		}
	})
})
