// The node's HTTP API routes, shared by the local HTTP server and by
// HTTP-over-libp2p streams: handle() turns a request into a response object
// { status, headers, body } or, for large bodies, { status, headers, length,
// chunks() } that each transport writes in its own framing.
import { peerIdFromString } from '@libp2p/peer-id'
import { runProbe, PROBE_KINDS } from './probe.js'
import { tryHolePunch } from './punch.js'
import { metricsText } from './metrics.js'

export const MAX_ECHO_BYTES = 1073741824
const ZEROS = Buffer.alloc(64 * 1024)

function json (status, value) {
	return {
		status,
		headers: { 'Content-Type': 'application/json' },
		body: Buffer.from(JSON.stringify(value) + '\n')
	}
}

function zeroBody (n) {
	return {
		status: 200,
		headers: { 'Content-Type': 'application/octet-stream' },
		length: n,
		async * chunks () {
			for (let left = n; left > 0; left -= ZEROS.length) {
				yield left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left)
			}
		}
	}
}

export class BadRequest extends Error {}

// Parses a JSON request body that must be an object.
// Errors worded as the real node's (Go's encoding/json behind gin).
function parseObject (body, struct) {
	let value
	try {
		value = JSON.parse(body.toString('utf8'))
	} catch (err) {
		throw new BadRequest(`invalid JSON body: ${err.message}`)
	}
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		throw new BadRequest(`invalid JSON body: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type server.${struct}`)
	}
	return value
}

// Decodes body.target as a PeerID; returns its string form.
export function decodeTarget (obj, struct = 'probeRequest') {
	if (obj.target === undefined || obj.target === null || obj.target === '') {
		throw new BadRequest('target is required')
	}
	if (typeof obj.target !== 'string') throw new BadRequest(`invalid JSON body: json: cannot unmarshal ${typeof obj.target} into Go struct field ${struct}.target of type string`)
	try {
		return peerIdFromString(obj.target).toString()
	} catch (err) {
		throw new BadRequest(`invalid target peer id: ${err.message}`)
	}
}

// An int field: absent, null or <= 0 gives the default (as Go's zero
// value); a fraction cannot be decoded into a Go int, so it is a 400.
export function numberField (obj, key, dflt, struct = 'probeRequest') {
	const v = obj[key]
	if (v === undefined || v === null) return dflt
	if (typeof v !== 'number' || !Number.isInteger(v)) {
		throw new BadRequest(`invalid JSON body: json: cannot unmarshal ${typeof v === 'number' ? `number ${v}` : typeof v} into Go struct field ${struct}.${key} of type int`)
	}
	return v > 0 ? v : dflt
}

function health (ctx) {
	if (ctx.faults.neverHealthy) return json(503, { status: 'unhealthy', reason: 'OTELA_FAKE_NEVER_HEALTHY is set' })
	return json(200, { status: 'ok' })
}

// GET /v1/self: the node's own record; loopback only, as the real node.
function self (ctx, req) {
	if (!req.loopback) return json(403, { error: 'localhost only' })
	return json(200, ctx.self)
}

function echo (query) {
	const raw = query.get('bytes')
	if (raw === null || !/^\d+$/.test(raw) || Number(raw) > MAX_ECHO_BYTES) {
		return json(400, { error: `bytes must be an integer in 0..${MAX_ECHO_BYTES}` })
	}
	return zeroBody(Number(raw))
}

// go-libp2p's Connectedness: Connected with any connection that is not
// limited, a relayed one through a relay without limits included (so
// Connected does not mean direct); Limited with limited ones only.
function connectedness (ctx, peerId) {
	const conns = ctx.node.getConnections(peerIdFromString(peerId)).filter(c => c.status === 'open')
	if (conns.length === 0) return 'NotConnected'
	return conns.some(c => c.limits == null) ? 'Connected' : 'Limited'
}

function connectedIds (ctx) {
	const peers = new Set()
	for (const conn of ctx.node.getConnections()) {
		if (conn.status === 'open') peers.add(conn.remotePeer.toString())
	}
	return peers
}

// The real table's shape: keyed "/<id>", connected peers only, not itself;
// each peer's record as it announced it (relay_peer among its fields),
// connected: true.
function dntTable (ctx) {
	const table = {}
	for (const id of connectedIds(ctx)) {
		const record = ctx.records.get(id)?.record
		table[`/${id}`] = record ? { ...record, connected: true } : { id, latency: 0, privileged: false, owner: '', connected: true, last_seen: Math.floor(Date.now() / 1000), service: [] }
	}
	return table
}

// GET /v1/dnt/peers: the connected peers and their known addresses, in
// go's field names (peer.AddrInfo).
async function dntPeers (ctx) {
	const peers = []
	for (const id of connectedIds(ctx)) {
		let addrs = []
		try {
			addrs = (await ctx.node.peerStore.get(peerIdFromString(id))).addresses.map(a => a.multiaddr.toString())
		} catch {}
		peers.push({ ID: id, Addrs: addrs })
	}
	return { peers }
}

// GET /v1/dnt/peers_status: every peer of the peer store and its
// connectedness.
async function dntPeersStatus (ctx) {
	const peers = []
	for (const p of await ctx.node.peerStore.all()) {
		const id = p.id.toString()
		if (id !== ctx.peerId) peers.push({ id, connectedness: connectedness(ctx, id) })
	}
	return { peers }
}

function sleep (ms, signal) {
	return new Promise(resolve => {
		const t = setTimeout(resolve, ms)
		signal?.addEventListener('abort', () => { clearTimeout(t); resolve() }, { once: true })
	})
}

// POST /v1/probe/holepunch, as the real node's holepunchHandler: while
// attempts and the deadline last, Connected ends it at once (before any
// attempt, attempts 0, for a pair connected already, directly or through
// a relay without limits); otherwise one TryHolePunch (its error kept as
// last_error, also when a later check finds the pair Connected) and
// wait_ms of sleep. The deadline is checked only before an attempt.
async function holepunch (ctx, body) {
	const obj = parseObject(body, 'holepunchRequest')
	const target = decodeTarget(obj, 'holepunchRequest')
	const attempts = numberField(obj, 'attempts', 5, 'holepunchRequest')
	const waitMs = numberField(obj, 'wait_ms', 2000, 'holepunchRequest')
	const deadline = Date.now() + numberField(obj, 'timeout_ms', 30000, 'holepunchRequest')
	const out = { ok: false, target, connectedness: '', attempts: 0 }
	let lastError = ''
	while (out.attempts < attempts && Date.now() < deadline) {
		out.connectedness = connectedness(ctx, target)
		if (out.connectedness === 'Connected') {
			out.ok = true
			if (lastError) out.last_error = lastError
			return json(200, out)
		}
		out.attempts++
		const err = await tryHolePunch(ctx, target)
		if (err) lastError = err
		await sleep(waitMs, ctx.stopSignal)
	}
	out.connectedness = connectedness(ctx, target)
	out.ok = out.connectedness === 'Connected'
	if (lastError) out.last_error = lastError
	return json(200, out)
}

async function probeRun (ctx, body) {
	const obj = parseObject(body, 'probeRequest')
	const target = decodeTarget(obj)
	if (typeof obj.kind !== 'string' || !PROBE_KINDS.includes(obj.kind) ||
		(obj.kind === 'connect' && !ctx.faults.kindConnect)) {
		throw new BadRequest(`unknown kind: ${typeof obj.kind === 'string' ? obj.kind : ''}`)
	}
	const request = {
		target,
		kind: obj.kind,
		count: numberField(obj, 'count', 20),
		bytes: numberField(obj, 'bytes', obj.kind === 'throughput' ? 10485760 : 0),
		timeout_ms: numberField(obj, 'timeout_ms', 60000)
	}
	const result = await runProbe(ctx, request)
	if (ctx.faults.hugeAnswer > 0) hugeAnswer(result, ctx.faults.hugeAnswer)
	return json(200, result)
}

// OTELA_FAKE_HUGE_ANSWER=BYTES: a hostile node's answer, about BYTES large
// (within netprof's 16 MiB cap): latency fails with an error text of BYTES,
// the other kinds succeed with a samples_ns array of BYTES.
function hugeAnswer (result, bytes) {
	if (result.kind === 'latency') {
		result.ok = false
		result.error = 'no successful samples: ' + 'x'.repeat(bytes)
		result.metrics = { failed_samples: 1 }
	} else {
		result.metrics = { ...result.metrics, samples_ns: new Array(Math.ceil(bytes / 9)).fill(12345678) }
	}
}

const ROUTES = {
	'/v1/health': { GET: ctx => health(ctx) },
	'/v1/self': { GET: (ctx, req) => self(ctx, req) },
	'/v1/dnt/table': { GET: ctx => json(200, dntTable(ctx)) },
	'/v1/dnt/peers': { GET: async ctx => json(200, await dntPeers(ctx)) },
	'/v1/dnt/peers_status': { GET: async ctx => json(200, await dntPeersStatus(ctx)) },
	'/v1/probe/echo': { GET: (ctx, req) => echo(req.query) },
	'/v1/probe/run': { POST: (ctx, req) => probeRun(ctx, req.body) },
	'/v1/probe/holepunch': { POST: (ctx, req) => holepunch(ctx, req.body) },
	// the Prometheus registry, with what it says of connections and relays
	'/metrics': { GET: ctx => ({ status: 200, headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' }, body: Buffer.from(metricsText(ctx.metrics)) }) }
}

// req: { method, target (path and query), body: Buffer }.
export async function handle (ctx, req) {
	const url = new URL(req.target, 'http://node')
	const route = ROUTES[url.pathname]
	// gin's answer to an unknown path or method: plain text
	const fn = route?.[req.method]
	if (!fn) return { status: 404, headers: { 'Content-Type': 'text/plain' }, body: Buffer.from('404 page not found') }
	try {
		return await fn(ctx, { method: req.method, query: url.searchParams, body: req.body, loopback: req.loopback === true })
	} catch (err) {
		if (err instanceof BadRequest) return json(400, { error: err.message })
		ctx.log('error', `${req.method} ${url.pathname}: ${err.stack ?? err.message}`)
		return json(500, { error: err.message })
	}
}
