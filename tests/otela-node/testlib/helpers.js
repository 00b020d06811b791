// Test helpers: run the otela CLI, start stand-in nodes on loopback with
// free ports, talk to their HTTP API, and check metric shapes against the
// contract.
import assert from 'node:assert/strict'
import { after } from 'node:test'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import http from 'node:http'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
export const OTELA = path.resolve(here, '../bin/otela')

if (!fs.existsSync(path.resolve(here, '../node_modules/libp2p'))) {
	throw new Error('node_modules is missing: run npm ci in tests/otela-node (or tests/otela-node/install.sh)')
}

// Everything a test file writes is under one directory of its own, in
// NETPROF_TEST_TMP (set by ctest) or the system's temporary directory,
// removed when the file's process exits: nothing is left behind.
const ROOT = (() => {
	const base = process.env.NETPROF_TEST_TMP || os.tmpdir()
	fs.mkdirSync(base, { recursive: true })
	return fs.mkdtempSync(path.join(base, 'otela-node-'))
})()
process.on('exit', () => fs.rmSync(ROOT, { recursive: true, force: true }))

export function tmpDir (prefix) {
	return fs.mkdtempSync(path.join(ROOT, `${prefix}-`))
}

// Every otela the tests run has a $HOME of its own (init and start write
// there, as the real node does; never the home of the user running the
// tests) and the short timings, unless a test sets them: the real ones (3 s
// to the API, 10 s of SIGTERM cleanup) would only slow tests that are not
// about them.
export const HOME = tmpDir('home')
export const QUICK = { HOME, OTELA_FAKE_API_DELAY_MS: '100', OTELA_FAKE_STOP_MS: '200', OTELA_FAKE_WALLET_WRITE_MS: '0' }

// Runs `otela ...args`; resolves { code, stdout, stderr }.
export function run (args, { env = {}, timeoutMs = 30000 } = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(OTELA, args, { env: { ...process.env, ...QUICK, ...env } })
		let stdout = ''
		let stderr = ''
		child.stdout.on('data', d => { stdout += d })
		child.stderr.on('data', d => { stderr += d })
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
		child.on('error', reject)
		child.on('close', code => {
			clearTimeout(timer)
			resolve({ code, stdout, stderr })
		})
	})
}

// A loopback port nothing listens on, below the kernel's ephemeral range
// (no connection of a running node takes it as its source port before the
// node binds it), never the same one twice in this process (a port handed
// out and not yet bound looks free to the kernel: two nodes of one mesh
// given one port, one of them answers the other's API with a reset).
const given = new Set()
const EPHEMERAL_LOW = (() => {
	try {
		return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768
	} catch {
		return 32768
	}
})()
const PORT_LOW = Math.min(15000, EPHEMERAL_LOW - 2000)
let nextPort = PORT_LOW + Math.floor(Math.random() * (EPHEMERAL_LOW - PORT_LOW))

function listens (port) {
	return new Promise(resolve => {
		const srv = net.createServer()
		srv.unref()
		srv.on('error', () => resolve(false))
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)))
	})
}

export async function freePort () {
	for (let tries = 0; tries < EPHEMERAL_LOW - PORT_LOW; tries++) {
		const port = nextPort
		nextPort = nextPort + 1 >= EPHEMERAL_LOW ? PORT_LOW : nextPort + 1
		if (given.has(port) || !await listens(port)) continue
		given.add(port)
		return port
	}
	throw new Error(`no free loopback port in ${PORT_LOW}-${EPHEMERAL_LOW - 1}`)
}

// Creates a node's config dir and identity; cfg is written by writeConfig.
export async function makeNode (root, name) {
	const dir = path.join(root, name)
	const r = await run(['init', '--config-dir', dir])
	assert.equal(r.code, 0, r.stderr)
	const id = await run(['peer-id', '--config-dir', dir])
	assert.equal(id.code, 0, id.stderr)
	const node = {
		name,
		dir,
		cfg: path.join(dir, 'cfg.yaml'),
		peerId: id.stdout.trim(),
		httpPort: await freePort(),
		tcpPort: await freePort(),
		child: null
	}
	node.addr = `/ip4/127.0.0.1/tcp/${node.tcpPort}/p2p/${node.peerId}`
	return node
}

// Writes cfg.yaml the way the bench renders it (ports as strings), or as a
// JSON document when asJson is set.
export function writeConfig (node, bootstrap, { asJson = false } = {}) {
	if (asJson) {
		fs.writeFileSync(node.cfg, JSON.stringify({ port: node.httpPort, tcpport: node.tcpPort, bootstrap: { static: bootstrap } }))
		return
	}
	const list = bootstrap.map(a => `"${a}"`).join(', ')
	fs.writeFileSync(node.cfg, [
		`port: "${node.httpPort}"`,
		`tcpport: "${node.tcpPort}"`,
		`udpport: "${node.tcpPort + 1}"`,
		'cleanslate: true',
		'reachability: auto',
		'bootstrap:',
		`  static: [ ${list} ]`,
		'security: { require_signed_binary: false }',
		'scalability: { swim_enabled: false, crdt_tuned: false, weighted_routing: false }',
		'billing: { enabled: false }',
		'bench: { run_id: test-run }',
		''
	].join('\n'))
}

export function startNode (node, env = {}) {
	const log = fs.openSync(path.join(node.dir, 'log'), 'a')
	node.child = spawn(OTELA, ['start', '--config', node.cfg, '--config-dir', node.dir], {
		env: { ...process.env, ...QUICK, ...env },
		stdio: ['ignore', log, log]
	})
	fs.closeSync(log)
	const child = node.child
	live.add(node)
	node.exited = new Promise(resolve => child.on('exit', (code, signal) => {
		if (node.child === child) live.delete(node)
		resolve({ code, signal })
	}))
	return node
}

// Every node started and not yet gone. A hook that fails after starting
// some (a mesh whose last node never answers) leaves them to the file's
// last hook, which stops them: a running child would keep the file's
// process, and the whole run, waiting until ctest's timeout.
const live = new Set()
after(async () => { for (const node of [...live]) await stopNode(node) })
process.on('exit', () => { for (const node of live) node.child.kill('SIGKILL') })

// Sends SIGTERM; resolves { code, signal, ms } once the process is gone.
export async function stopNode (node) {
	if (!node?.child || node.child.exitCode !== null || node.child.signalCode !== null) return null
	const t0 = Date.now()
	node.child.kill('SIGTERM')
	const killer = setTimeout(() => node.child.kill('SIGKILL'), 10000)
	const res = await node.exited
	clearTimeout(killer)
	return { ...res, ms: Date.now() - t0 }
}

export function logOf (node) {
	try {
		return fs.readFileSync(path.join(node.dir, 'log'), 'utf8')
	} catch {
		return ''
	}
}

// One HTTP request to the node's local API.
const API_TIMEOUT_MS = 90000

export function api (node, method, urlPath, body) {
	return new Promise((resolve, reject) => {
		const data = body === undefined ? null : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))
		const req = http.request({
			host: '127.0.0.1',
			port: node.httpPort,
			path: urlPath,
			method,
			headers: data ? { 'Content-Type': 'application/json', 'Content-Length': data.length } : {},
			agent: false
		}, res => {
			const parts = []
			res.on('data', c => parts.push(c))
			res.on('end', () => {
				const buf = Buffer.concat(parts)
				let json = null
				try { json = JSON.parse(buf.toString('utf8')) } catch {}
				resolve({ status: res.statusCode, headers: res.headers, body: buf, json })
			})
		})
		// no request waits for ever: a node that stops answering fails
		// the test that asked it, not the whole file at ctest's timeout
		req.setTimeout(API_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${urlPath}: no answer within ${API_TIMEOUT_MS} ms`)))
		req.on('error', reject)
		req.end(data ?? undefined)
	})
}

export const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

// Polls fn until it returns a truthy value; fails after limitMs.
export async function eventually (what, fn, limitMs = 20000) {
	const end = Date.now() + limitMs
	let last
	while (Date.now() < end) {
		try {
			last = await fn()
			if (last) return last
		} catch (err) {
			last = err
		}
		await sleep(100)
	}
	assert.fail(`${what}: not reached within ${limitMs} ms (last: ${last?.message ?? JSON.stringify(last)})`)
}

// The node's API comes up only after its bootstrap dials (each up to
// 10 s, as the real node's): on a loaded machine that is not quick.
export async function waitHealthy (node, limitMs = 60000) {
	return eventually(`${node.name} healthy`, async () => (await api(node, 'GET', '/v1/health')).status === 200, limitMs)
}

// Every 12D3.../Qm... string anywhere in a JSON value (the tolerant reader).
export function peerIdsIn (value, out = new Set()) {
	if (typeof value === 'string') {
		if (value.startsWith('12D3') || value.startsWith('Qm')) out.add(value)
	} else if (value && typeof value === 'object') {
		for (const [k, v] of Object.entries(value)) {
			peerIdsIn(k, out)
			peerIdsIn(v, out)
		}
	}
	return out
}

export async function probe (node, body) {
	const res = await api(node, 'POST', '/v1/probe/run', body)
	assert.equal(res.status, 200, res.body.toString())
	return res.json
}

const STATS = ['min', 'avg', 'p50', 'p95', 'max']

// Checks a latency-style result (libp2p_ping, latency) against the contract.
export function checkLatencyResult (res, { kind, target, count }) {
	assert.equal(res.ok, true, res.error)
	assert.equal(res.kind, kind)
	assert.equal(res.target, target)
	assert.equal(res.config.count, count)
	assert.equal(typeof res.config.bytes, 'number')
	assert.equal(typeof res.config.timeout_ms, 'number')
	assert.equal(res.error, undefined)
	const m = res.metrics
	assert.ok(Number.isInteger(m.failed_samples) && m.failed_samples >= 0)
	assert.ok(Array.isArray(m.samples_ns))
	assert.equal(m.samples_ns.length, count - m.failed_samples)
	for (const s of m.samples_ns) assert.ok(Number.isInteger(s) && s > 0, `sample ${s}`)
	const sorted = [...m.samples_ns].sort((a, b) => a - b)
	const n = sorted.length
	const want = {
		min: sorted[0],
		max: sorted[n - 1],
		p50: sorted[Math.round(0.5 * (n - 1))],
		p95: sorted[Math.round(0.95 * (n - 1))],
		avg: Math.floor(sorted.reduce((a, b) => a + b, 0) / n)
	}
	for (const k of STATS) {
		assert.ok(Number.isInteger(m[`${k}_ns`]), `${k}_ns integer`)
		assert.equal(m[`${k}_ns`], want[k], `${k}_ns`)
		assert.equal(typeof m[`${k}_ms`], 'number')
		assert.ok(Math.abs(m[`${k}_ms`] - want[k] / 1e6) < 1e-9, `${k}_ms`)
	}
	return m
}

export function checkThroughputResult (res, { target, count, bytes }) {
	assert.equal(res.ok, true, res.error)
	assert.equal(res.kind, 'throughput')
	assert.equal(res.target, target)
	assert.deepEqual(res.config, { count, bytes, timeout_ms: res.config.timeout_ms })
	const m = res.metrics
	assert.ok(Number.isInteger(m.failed_samples) && m.failed_samples >= 0)
	assert.equal(m.iterations.length, count - m.failed_samples)
	let totalBytes = 0
	let totalNs = 0
	for (const it of m.iterations) {
		assert.equal(it.bytes_received, bytes)
		assert.ok(Number.isInteger(it.elapsed_ns) && it.elapsed_ns > 0)
		assert.ok(Math.abs(it.mbps - (bytes * 8 / 1e6) / (it.elapsed_ns / 1e9)) < 1e-6 * it.mbps)
		totalBytes += it.bytes_received
		totalNs += it.elapsed_ns
	}
	assert.equal(m.bytes_received, totalBytes)
	assert.equal(m.elapsed_ns, totalNs)
	assert.ok(m.mbps > 0)
	assert.ok(Math.abs(m.mbps - (totalBytes * 8 / 1e6) / (totalNs / 1e9)) < 1e-6 * m.mbps)
	return m
}

// The real node's failure shape: a ping whose stream cannot open is one
// failed sample (go-libp2p's ping then ends), latency and throughput count
// every attempt.
export function checkFailure (res, { count }) {
	assert.equal(res.ok, false)
	assert.deepEqual(res.metrics, { failed_samples: res.kind === 'libp2p_ping' ? 1 : count })
	assert.equal(typeof res.error, 'string')
	assert.match(res.error, /^no successful (pings|samples|iterations): \S/)
}
