// Probe runners behind POST /v1/probe/run: libp2p_ping (round trips on the
// ping protocol), latency (GET /v1/health over HTTP-over-libp2p) and
// throughput (GET /v1/probe/echo?bytes=B over HTTP-over-libp2p), both on
// kept-alive streams, plus the metric shapes of the contract; and, beyond
// the real node (OTELA_KIND_CONNECT=1), connect: per sample the peer's
// connections hung up, a new one dialled and its first ping. Times come from process.hrtime.bigint().
import crypto from 'node:crypto'
import { peerIdFromString } from '@libp2p/peer-id'
import { multiaddr } from '@multiformats/multiaddr'
import { StreamReader, writeRequest, readResponseHead } from './wire.js'
import { streamTo } from './relay.js'

export const PROBE_KINDS = ['libp2p_ping', 'latency', 'throughput', 'connect']
export const PING_PROTOCOL = '/ipfs/ping/1.0.0'
export const HTTP_PROTOCOL = '/libp2p-http'
export const PING_SIZE = 32
const PING_TIMEOUT_MS = 10000

const now = () => process.hrtime.bigint()

class ProbeTimeout extends Error {}

// Races promise against ms; on timeout calls onTimeout (to abort the stream)
// and rejects with a ProbeTimeout.
function within (promise, ms, what, onTimeout) {
	let timer
	const timeout = new Promise((resolve, reject) => {
		timer = setTimeout(() => {
			const err = new ProbeTimeout(`${what}: timed out after ${ms} ms`)
			onTimeout?.(err)
			reject(err)
		}, ms)
	})
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

function describe (err) {
	if (err?.name === 'StreamResetError' || /reset/i.test(err?.message ?? '')) {
		return `stream reset: ${err.message}`
	}
	return err?.message ?? String(err)
}

// go-libp2p's swarm backs off from a peer whose dial failed: its dials
// fail at once with "dial backoff" for BackoffBase (5 s) + BackoffCoef
// (1 s) x tries^2.
const BACKOFF_BASE_MS = 5000
const BACKOFF_COEF_MS = 1000

// Why a dial of one address failed, in Go's words (net.Dial's).
function dialReason (err, addr) {
	const texts = [err?.message ?? '', ...(err?.errors ?? []).map(e => e?.message ?? '')].join(' ')
	const m = /\/ip[46]\/([^/]+)\/tcp\/(\d+)/.exec(addr)
	const dial = m ? `dial tcp4 ${m[1]}:${m[2]}: ` : ''
	if (/ENETUNREACH/.test(texts)) return `${dial}connect: network is unreachable`
	if (/EHOSTUNREACH/.test(texts)) return `${dial}connect: no route to host`
	if (/ECONNREFUSED/.test(texts)) return `${dial}connect: connection refused`
	if (/timeout|timed out|aborted/i.test(texts)) return `${dial}i/o timeout`
	return err?.message ?? 'dial failed'
}

// go-libp2p's error for a peer none of whose addresses could be dialled.
function dialError (peer, addrs, reason) {
	if (addrs.length === 0) return `failed to dial: failed to dial ${peer}: no addresses`
	return `failed to dial: failed to dial ${peer}: all dials failed\n${addrs.map(a => `  * [${a}] ${reason(a)}`).join('\n')}`
}

async function knownAddrs (ctx, pid) {
	try {
		return (await ctx.node.peerStore.get(pid)).addresses.map(a => a.multiaddr.toString())
	} catch {
		return []
	}
}

// The real node's peer store holds its bootstrap peers' addresses from
// the start, dialled or not; a failed dial leaves none in libp2p's. So a
// peer with no address known gets its bootstrap list entries (its
// /p2p/<id> taken off), and the dial tries them.
async function learnBootstrapAddrs (ctx, pid, peer) {
	if ((await knownAddrs(ctx, pid)).length > 0) return
	const suffix = `/p2p/${peer}`
	const addrs = (ctx.cfg.bootstrap ?? []).filter(a => a.endsWith(suffix) && !a.includes('/p2p-circuit'))
		.map(a => multiaddr(a.slice(0, -suffix.length)))
	if (addrs.length > 0) await ctx.node.peerStore.merge(pid, { multiaddrs: addrs }).catch(() => {})
}

// A stream to the peer, over a relayed connection too: the real node's
// probes allow a limited (relayed) connection when there is no other
// (ping's own rule; gostream with WithAllowLimitedConn; streamTo). Without a connection it dials, and fails as go-libp2p's swarm does: the
// addresses it tried and why each failed, or its backoff.
async function openStream (ctx, peer, protocol, ms) {
	const signal = AbortSignal.any([AbortSignal.timeout(ms), ctx.stopSignal])
	const pid = peerIdFromString(peer)
	const connected = ctx.node.getConnections(pid).some(c => c.status === 'open')
	const backoff = ctx.dialBackoff.get(peer)
	if (!connected) await learnBootstrapAddrs(ctx, pid, peer)
	if (!connected && backoff && Date.now() < backoff.until) {
		throw new Error(dialError(peer, await knownAddrs(ctx, pid), () => 'dial backoff'))
	}
	try {
		const stream = await streamTo(ctx.node, pid, protocol, { signal })
		ctx.dialBackoff.delete(peer)
		return stream
	} catch (err) {
		if (connected || ctx.node.getConnections(pid).some(c => c.status === 'open')) {
			throw new Error(`failed to dial ${peer} (${protocol}): ${err.message}`)
		}
		const tries = (backoff?.tries ?? 0) + 1
		ctx.dialBackoff.set(peer, { tries, until: Date.now() + BACKOFF_BASE_MS + BACKOFF_COEF_MS * tries * tries })
		throw new Error(dialError(peer, await knownAddrs(ctx, pid), a => dialReason(err, a)))
	}
}

// Latency-style metrics over successful samples (ns), with the percentile at
// index round(p*(n-1)) of the sorted samples; avg truncates like Go's
// integer division of durations.
export function latencyMetrics (samples, failed) {
	const sorted = [...samples].sort((a, b) => a - b)
	const n = sorted.length
	const at = p => sorted[Math.round(p * (n - 1))]
	const ns = {
		min: sorted[0],
		avg: Math.floor(sorted.reduce((s, v) => s + v, 0) / n),
		p50: at(0.5),
		p95: at(0.95),
		max: sorted[n - 1]
	}
	const m = {}
	for (const k of ['min', 'avg', 'p50', 'p95', 'max']) m[`${k}_ns`] = ns[k]
	for (const k of ['min', 'avg', 'p50', 'p95', 'max']) m[`${k}_ms`] = ns[k] / 1e6
	m.samples_ns = samples
	m.failed_samples = failed
	return m
}

export function mbps (bytes, ns) {
	return ns > 0 ? (bytes * 8 / 1e6) / (ns / 1e9) : 0
}

// N round trips of 32 random bytes on one ping stream (as go-libp2p's ping
// service does); a failed round trip aborts the stream and the next sample
// opens a fresh one. Stream opening is not part of any sample.
async function pingSamples (ctx, req, deadline) {
	const out = { samples: [], failed: 0, lastError: null }
	let stream = null
	let reader = null
	for (let i = 0; i < req.count; i++) {
		const left = deadline - Date.now()
		if (left <= 0) {
			out.lastError ??= 'context deadline exceeded'
			break
		}
		try {
			if (stream === null) {
				try {
					stream = await openStream(ctx, req.target, PING_PROTOCOL, left)
				} catch (err) {
					// go-libp2p's ping: a stream that cannot open is one
					// error result, then the channel closes
					out.failed++
					out.lastError = describe(err)
					break
				}
				reader = new StreamReader(stream)
			}
			const payload = crypto.randomBytes(PING_SIZE)
			const s = stream
			const t0 = now()
			if (!s.send(payload)) await s.onDrain()
			const echoed = await within(reader.readExact(PING_SIZE), Math.min(PING_TIMEOUT_MS, Math.max(1, deadline - Date.now())),
				'ping', err => s.abort(err))
			const rtt = Number(now() - t0)
			if (!echoed.equals(payload)) throw new Error('ping: peer echoed different bytes')
			if (rtt <= 0) {
				out.failed++
				out.lastError = 'ping: zero round-trip time'
				continue
			}
			out.samples.push(rtt)
		} catch (err) {
			out.failed++
			out.lastError = describe(err)
			stream?.abort(err instanceof Error ? err : new Error(String(err)))
			stream = null
		}
	}
	if (stream) await stream.close().catch(() => {})
	return out
}

// Kept-alive HTTP-over-libp2p streams, as the real node's global
// http.Transport over gostream keeps them (internal/server/
// libp2p_http_transport.go): per peer at most POOL_PER_PEER idle streams,
// each closed after POOL_IDLE_MS unused; shared by every probe run, so only
// the first request to a peer pays for opening a stream.
const POOL_PER_PEER = 64
const POOL_IDLE_MS = 90000

function reusable (stream) {
	return stream.status === 'open' && stream.writeStatus === 'writable' &&
		stream.readStatus !== 'closed' && stream.remoteWriteStatus === 'writable'
}

function takeIdle (ctx, peer) {
	const idle = ctx.httpPool.get(peer) ?? []
	while (idle.length > 0) {
		const conn = idle.pop()
		clearTimeout(conn.timer)
		if (reusable(conn.stream)) return conn
		conn.stream.abort(new Error('idle stream no longer usable'))
	}
	return null
}

function putIdle (ctx, peer, conn) {
	const idle = ctx.httpPool.get(peer) ?? []
	if (ctx.stopSignal.aborted || idle.length >= POOL_PER_PEER || !reusable(conn.stream)) {
		conn.stream.close().catch(() => {})
		return
	}
	conn.timer = setTimeout(() => {
		const i = idle.indexOf(conn)
		if (i >= 0) idle.splice(i, 1)
		conn.stream.close().catch(() => {})
	}, POOL_IDLE_MS)
	conn.timer.unref()
	idle.push(conn)
	ctx.httpPool.set(peer, idle)
}

// Closes every idle stream (at stop).
export function closeIdleStreams (ctx) {
	for (const idle of ctx.httpPool.values()) {
		for (const conn of idle.splice(0)) {
			clearTimeout(conn.timer)
			conn.stream.close().catch(() => {})
		}
	}
}

// One HTTP/1.1 GET over a kept-alive HTTP-over-libp2p stream (an idle one
// to the peer, or a new one). Returns { status, bytes, ns } with ns from
// before a stream is taken or opened to the last body byte, as the real
// node's time.Now() before client.Do. A reused stream that fails before any
// response byte is dropped and the request sent once more on a new stream,
// as Go's transport retries an idempotent request on a reused connection.
async function httpGet (ctx, peer, target, deadline, { keepBody = false } = {}) {
	const t0 = now()
	let conn = takeIdle(ctx, peer)
	for (;;) {
		const reused = conn !== null
		if (!reused) {
			const stream = await openStream(ctx, peer, HTTP_PROTOCOL, Math.max(1, deadline - Date.now()))
			conn = { stream, reader: new StreamReader(stream), timer: null }
		}
		const { stream, reader } = conn
		let answered = false
		const work = (async () => {
			await writeRequest(stream, 'GET', target, peer)
			const head = await readResponseHead(reader)
			answered = true
			const parts = []
			const want = head.length ?? Number.MAX_SAFE_INTEGER
			const bytes = await reader.readBody(want, keepBody ? c => parts.push(Buffer.from(c)) : null)
			const ns = Number(now() - t0)
			if (head.length !== null && bytes < head.length) {
				throw new Error(`stream reset: body ended after ${bytes} of ${head.length} bytes`)
			}
			return { status: head.status, bytes, ns, body: keepBody ? Buffer.concat(parts) : null, keep: head.length !== null && !head.close }
		})()
		try {
			const r = await within(work, Math.max(1, deadline - Date.now()), `GET ${target}`, err => stream.abort(err))
			if (r.keep) putIdle(ctx, peer, conn)
			else stream.close().catch(() => {})
			return r
		} catch (err) {
			const reset = stream.status === 'reset' && !/reset/i.test(err?.message ?? '')
			stream.abort(err instanceof Error ? err : new Error(String(err)))
			if (reused && !answered && !(err instanceof ProbeTimeout)) {
				conn = null
				continue
			}
			throw reset ? new Error(`stream reset by ${peer}: ${err?.message}`) : err
		}
	}
}

// Cold connections, as libp2p's perf benchmark times "connect + 1 byte":
// per sample every connection to the peer hung up, then from before the
// dial to the first ping's echo (a new connection, its security and muxer
// handshakes, the ping stream's negotiation, one round trip). dial_ms and
// first_rtt_ms split the median sample's time at the stream's opening.
async function connectSamples (ctx, req, deadline) {
	const out = { samples: [], dials: [], firsts: [], failed: 0, lastError: null }
	const pid = peerIdFromString(req.target)
	for (let i = 0; i < req.count; i++) {
		const left = deadline - Date.now()
		if (left <= 0) {
			out.lastError ??= 'context deadline exceeded'
			break
		}
		let stream = null
		try {
			await ctx.node.hangUp(pid)
			ctx.dialBackoff.delete(req.target)
			const t0 = now()
			stream = await openStream(ctx, req.target, PING_PROTOCOL, left)
			const t1 = now()
			const s = stream
			const payload = crypto.randomBytes(PING_SIZE)
			if (!s.send(payload)) await s.onDrain()
			const echoed = await within(new StreamReader(s).readExact(PING_SIZE),
				Math.min(PING_TIMEOUT_MS, Math.max(1, deadline - Date.now())), 'ping', err => s.abort(err))
			const t2 = now()
			if (!echoed.equals(payload)) throw new Error('ping: peer echoed different bytes')
			out.samples.push(Number(t2 - t0))
			out.dials.push(Number(t1 - t0))
			out.firsts.push(Number(t2 - t1))
			await s.close().catch(() => {})
		} catch (err) {
			out.failed++
			out.lastError = describe(err)
			stream?.abort(err instanceof Error ? err : new Error(String(err)))
		}
	}
	return out
}

async function latencySamples (ctx, req, deadline) {
	const out = { samples: [], failed: 0, lastError: null }
	for (let i = 0; i < req.count; i++) {
		if (deadline - Date.now() <= 0) {
			out.lastError ??= 'context deadline exceeded'
			break
		}
		try {
			const r = await httpGet(ctx, req.target, '/v1/health', deadline, { keepBody: true })
			if (r.status !== 200) throw new Error(`GET /v1/health: HTTP ${r.status}`)
			if (r.ns <= 0) throw new Error('GET /v1/health: zero round-trip time')
			out.samples.push(r.ns)
		} catch (err) {
			out.failed++
			out.lastError = describe(err)
		}
	}
	return out
}

async function throughputRun (ctx, req, deadline) {
	const out = { iterations: [], failed: 0, lastError: null }
	const path = `/v1/probe/echo?bytes=${req.bytes}`
	for (let i = 0; i < req.count; i++) {
		if (deadline - Date.now() <= 0) {
			out.lastError ??= 'context deadline exceeded'
			break
		}
		try {
			const r = await httpGet(ctx, req.target, path, deadline)
			if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`)
			if (r.bytes !== req.bytes) throw new Error(`GET ${path}: got ${r.bytes} of ${req.bytes} bytes`)
			out.iterations.push({ bytes_received: r.bytes, elapsed_ns: r.ns, mbps: mbps(r.bytes, r.ns) })
		} catch (err) {
			out.failed++
			out.lastError = describe(err)
		}
	}
	return out
}

// Runs one validated probe request; returns the response body of
// POST /v1/probe/run.
export async function runProbe (ctx, req) {
	const deadline = Date.now() + req.timeout_ms
	const res = {
		ok: false,
		kind: req.kind,
		target: req.target,
		config: { count: req.count, bytes: req.bytes, timeout_ms: req.timeout_ms }
	}
	let good, r
	if (req.target === ctx.peerId) {
		r = { samples: [], iterations: [], failed: req.count, lastError: 'cannot probe self' }
		good = 0
	} else if (req.kind === 'throughput') {
		r = await throughputRun(ctx, req, deadline)
		good = r.iterations.length
	} else {
		r = await ({ libp2p_ping: pingSamples, latency: latencySamples, connect: connectSamples }[req.kind])(ctx, req, deadline)
		good = r.samples.length
	}
	if (good === 0) {
		const what = { libp2p_ping: 'pings', latency: 'samples', throughput: 'iterations', connect: 'connections' }[req.kind]
		res.metrics = { failed_samples: r.failed }
		res.error = `no successful ${what}: ${r.lastError ?? ''}`
		return res
	}
	res.ok = true
	if (req.kind === 'throughput') {
		const bytes = r.iterations.reduce((s, it) => s + it.bytes_received, 0)
		const ns = r.iterations.reduce((s, it) => s + it.elapsed_ns, 0)
		res.metrics = { bytes_received: bytes, elapsed_ns: ns, mbps: mbps(bytes, ns), iterations: r.iterations, failed_samples: r.failed }
	} else {
		res.metrics = latencyMetrics(r.samples, r.failed)
	}
	if (req.kind === 'connect') {
		const median = [...r.samples.keys()].sort((a, b) => r.samples[a] - r.samples[b])[Math.round(0.5 * (good - 1))]
		res.metrics.dial_ms = r.dials[median] / 1e6
		res.metrics.first_rtt_ms = r.firsts[median] / 1e6
	}
	return res
}
