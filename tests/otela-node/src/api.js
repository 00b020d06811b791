// The node's HTTP API routes, shared by the local HTTP server and by
// HTTP-over-libp2p streams: handle() turns a request into a response object
// { status, headers, body } or, for large bodies, { status, headers, length,
// chunks() } that each transport writes in its own framing.
import { peerIdFromString } from '@libp2p/peer-id'
import { runProbe, PROBE_KINDS } from './probe.js'

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
function parseObject (body) {
	let value
	try {
		value = JSON.parse(body.toString('utf8'))
	} catch (err) {
		throw new BadRequest(`bad JSON: ${err.message}`)
	}
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		throw new BadRequest('bad JSON: expected an object')
	}
	return value
}

// Decodes body.target as a PeerID; returns its string form.
export function decodeTarget (obj) {
	if (obj.target === undefined || obj.target === null || obj.target === '') {
		throw new BadRequest('missing target')
	}
	if (typeof obj.target !== 'string') throw new BadRequest('bad JSON: target must be a string')
	try {
		return peerIdFromString(obj.target).toString()
	} catch (err) {
		throw new BadRequest(`invalid target ${JSON.stringify(obj.target)}: ${err.message}`)
	}
}

// A numeric field: absent, null or <= 0 gives the default (as Go's zero value).
export function numberField (obj, key, dflt) {
	const v = obj[key]
	if (v === undefined || v === null) return dflt
	if (typeof v !== 'number' || !Number.isFinite(v)) {
		throw new BadRequest(`bad JSON: ${key} must be a number`)
	}
	return v > 0 ? Math.floor(v) : dflt
}

function health (ctx) {
	if (ctx.faults.neverHealthy) return json(503, { status: 'unhealthy', reason: 'OTELA_FAKE_NEVER_HEALTHY is set' })
	return json(200, { status: 'ok', peer_id: ctx.peerId })
}

function echo (query) {
	const raw = query.get('bytes')
	if (raw === null || !/^\d+$/.test(raw) || Number(raw) > MAX_ECHO_BYTES) {
		return json(400, { error: `bytes must be an integer in 0..${MAX_ECHO_BYTES}` })
	}
	return zeroBody(Number(raw))
}

function connectedness (ctx, peerId) {
	const conns = ctx.node.getConnections(peerIdFromString(peerId)).filter(c => c.status === 'open')
	if (conns.length === 0) return 'NotConnected'
	return conns.some(c => c.limits === undefined) ? 'Connected' : 'Limited'
}

function dntTable (ctx) {
	const table = {}
	table[ctx.peerId] = {
		id: ctx.peerId,
		connected: true,
		status: 'self',
		addrs: ctx.node.getMultiaddrs().map(a => a.toString())
	}
	const peers = new Set(ctx.seenPeers)
	for (const conn of ctx.node.getConnections()) peers.add(conn.remotePeer.toString())
	for (const id of peers) {
		const conns = ctx.node.getConnections(peerIdFromString(id)).filter(c => c.status === 'open')
		table[id] = {
			id,
			connected: conns.length > 0,
			status: conns.length > 0 ? 'connected' : 'disconnected',
			addrs: conns.map(c => c.remoteAddr.toString())
		}
	}
	return table
}

function sleep (ms, signal) {
	return new Promise(resolve => {
		const t = setTimeout(resolve, ms)
		signal?.addEventListener('abort', () => { clearTimeout(t); resolve() }, { once: true })
	})
}

async function holepunch (ctx, body) {
	const obj = parseObject(body)
	const target = decodeTarget(obj)
	const attempts = numberField(obj, 'attempts', 5)
	const waitMs = numberField(obj, 'wait_ms', 2000)
	const deadline = Date.now() + numberField(obj, 'timeout_ms', 30000)
	let lastError = null
	let used = 0
	let state = connectedness(ctx, target)
	if (state === 'Connected') used = 1
	while (state !== 'Connected' && used < attempts && Date.now() < deadline) {
		used++
		try {
			const left = Math.max(1, deadline - Date.now())
			await ctx.node.dial(peerIdFromString(target), { signal: AbortSignal.timeout(left) })
		} catch (err) {
			lastError = `failed to dial ${target}: ${err.message}`
		}
		state = connectedness(ctx, target)
		if (state !== 'Connected' && used < attempts) {
			await sleep(Math.min(waitMs, Math.max(0, deadline - Date.now())), ctx.stopSignal)
		}
	}
	const out = { ok: state === 'Connected', target, connectedness: state, attempts: used }
	if (state !== 'Connected') out.last_error = lastError ?? 'timed out before any attempt'
	return json(200, out)
}

async function probeRun (ctx, body) {
	const obj = parseObject(body)
	const target = decodeTarget(obj)
	if (typeof obj.kind !== 'string' || !PROBE_KINDS.includes(obj.kind)) {
		throw new BadRequest(`unknown kind ${JSON.stringify(obj.kind ?? '')}: want one of ${PROBE_KINDS.join(', ')}`)
	}
	const request = {
		target,
		kind: obj.kind,
		count: numberField(obj, 'count', 20),
		bytes: numberField(obj, 'bytes', obj.kind === 'throughput' ? 10485760 : 0),
		timeout_ms: numberField(obj, 'timeout_ms', 60000)
	}
	return json(200, await runProbe(ctx, request))
}

const ROUTES = {
	'/v1/health': { GET: ctx => health(ctx) },
	'/v1/dnt/table': { GET: ctx => json(200, dntTable(ctx)) },
	'/v1/probe/echo': { GET: (ctx, req) => echo(req.query) },
	'/v1/probe/run': { POST: (ctx, req) => probeRun(ctx, req.body) },
	'/v1/probe/holepunch': { POST: (ctx, req) => holepunch(ctx, req.body) }
}

// req: { method, target (path and query), body: Buffer }.
export async function handle (ctx, req) {
	const url = new URL(req.target, 'http://node')
	const route = ROUTES[url.pathname]
	if (!route) return json(404, { error: `no route ${url.pathname}` })
	const fn = route[req.method]
	if (!fn) return json(405, { error: `${req.method} not allowed on ${url.pathname}` })
	try {
		return await fn(ctx, { method: req.method, query: url.searchParams, body: req.body })
	} catch (err) {
		if (err instanceof BadRequest) return json(400, { error: err.message })
		ctx.log('error', `${req.method} ${url.pathname}: ${err.stack ?? err.message}`)
		return json(500, { error: err.message })
	}
}
