// `otela start`: a libp2p node (TCP + Noise + Yamux, identify) serving the
// ping protocol and HTTP-over-libp2p, the local HTTP API, and the bootstrap
// dialer that keeps every static bootstrap peer connected. Fault switches
// come from OTELA_FAKE_* environment variables (see docs/otela-node.md).
import http from 'node:http'
import { once } from 'node:events'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@libp2p/noise'
import { yamux } from '@libp2p/yamux'
import { identify } from '@libp2p/identify'
import { multiaddr } from '@multiformats/multiaddr'
import { peerIdFromString } from '@libp2p/peer-id'
import { handle } from './api.js'
import { PING_PROTOCOL, PING_SIZE, HTTP_PROTOCOL, closeIdleStreams } from './probe.js'
import { StreamReader, sendAll, readRequest, writeResponse, MAX_REQUEST_BODY } from './wire.js'
import { openDb, removeDb } from './home.js'

export function log (level, msg) {
	process.stderr.write(`${new Date().toISOString()} ${level.toUpperCase()} ${msg}\n`)
}

function envNumber (name, env, min, max) {
	const raw = env[name]
	if (raw === undefined || raw === '') return 0
	const v = Number(raw)
	if (!Number.isFinite(v) || v < min || v > max) {
		throw new Error(`${name}=${raw}: expected a number in ${min}..${max}`)
	}
	return v
}

export function readFaults (env = process.env) {
	const flag = name => env[name] !== undefined && env[name] !== '' && env[name] !== '0'
	return {
		neverHealthy: flag('OTELA_FAKE_NEVER_HEALTHY'),
		noHttp: flag('OTELA_FAKE_NO_HTTP'),
		pingDrop: envNumber('OTELA_FAKE_PING_DROP', env, 0, 1),
		startDelayMs: envNumber('OTELA_FAKE_START_DELAY_MS', env, 0, 3600000),
		apiDelayMs: env.OTELA_FAKE_API_DELAY_MS === undefined || env.OTELA_FAKE_API_DELAY_MS === '' ? 3000 : envNumber('OTELA_FAKE_API_DELAY_MS', env, 0, 3600000)
	}
}

function sleep (ms, signal) {
	return new Promise(resolve => {
		if (signal.aborted) return resolve()
		const t = setTimeout(resolve, ms)
		signal.addEventListener('abort', () => { clearTimeout(t); resolve() }, { once: true })
	})
}

// Deterministic dropper: drops exactly the fraction p of pings, spread
// evenly (with p = 0.5 every second ping).
function pingDropper (p) {
	let n = 0
	return () => {
		n++
		return Math.floor(n * p + 1e-9) > Math.floor((n - 1) * p + 1e-9)
	}
}

// Echoes 32-byte ping blocks; a dropped ping resets the stream.
function pingHandler (ctx) {
	const drop = pingDropper(ctx.faults.pingDrop)
	return async (stream) => {
		const reader = new StreamReader(stream)
		try {
			for (;;) {
				while (reader.buffered.length < PING_SIZE) {
					if (!(await reader.fill())) {
						await stream.close()
						return
					}
				}
				const block = Buffer.from(reader.take(PING_SIZE))
				if (ctx.faults.pingDrop > 0 && drop()) {
					stream.abort(new Error('ping dropped (OTELA_FAKE_PING_DROP)'))
					return
				}
				await sendAll(stream, block)
			}
		} catch (err) {
			stream.abort(err)
		}
	}
}

// Serves HTTP/1.1 requests on a stream through the shared API routes, one
// after the other while the client keeps the stream alive (as Go's
// http.Server on the real node's gostream listener).
function httpStreamHandler (ctx) {
	return async (stream, connection) => {
		if (ctx.faults.noHttp) {
			stream.abort(new Error('failed to dial: no reservation (OTELA_FAKE_NO_HTTP)'))
			return
		}
		// One line per stream, not per request: the tests count streams.
		log('info', `HTTP-over-libp2p stream ${++ctx.httpStreams} from ${connection?.remotePeer?.toString() ?? 'unknown peer'}`)
		try {
			const reader = new StreamReader(stream)
			for (;;) {
				const req = await readRequest(reader)
				if (req === null) {
					await stream.close()
					return
				}
				await writeResponse(stream, await handle(ctx, req), { close: req.close })
				if (req.close) return
			}
		} catch (err) {
			log('warn', `HTTP-over-libp2p request failed: ${err.message}`)
			stream.abort(err)
		}
	}
}

// Local HTTP API on 0.0.0.0:port through the same routes.
function startHttpServer (ctx, port) {
	const server = http.createServer(async (req, res) => {
		const parts = []
		let size = 0
		for await (const chunk of req) {
			size += chunk.length
			if (size > MAX_REQUEST_BODY) {
				res.writeHead(413).end()
				return
			}
			parts.push(chunk)
		}
		const loopback = ['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(req.socket.remoteAddress)
		const out = await handle(ctx, { method: req.method, target: req.url, body: Buffer.concat(parts), loopback })
		const length = out.body ? out.body.length : out.length
		res.writeHead(out.status, { ...out.headers, 'Content-Length': length })
		if (out.body) {
			res.end(out.body)
			return
		}
		for await (const chunk of out.chunks()) {
			if (res.destroyed) return
			if (!res.write(chunk)) {
				await Promise.race([once(res, 'drain'), once(res, 'close')])
			}
		}
		res.end()
	})
	server.requestTimeout = 0
	return new Promise((resolve, reject) => {
		server.once('error', reject)
		server.listen(port, '0.0.0.0', () => {
			server.off('error', reject)
			resolve(server)
		})
	})
}

// Peer exchange, the stand-in's small version of the DNT gossip: a peer
// asked on PEERS_PROTOCOL answers with the peers it is connected to and
// their listen addresses; the node dials the ones it does not know yet, so a
// mesh converges through any connected peer.
export const PEERS_PROTOCOL = '/otela-standin/peers/1.0.0'
const EXCHANGE_INTERVAL_MS = 2000

async function connectedPeers (ctx) {
	const out = []
	const ids = new Set(ctx.node.getConnections().filter(c => c.status === 'open').map(c => c.remotePeer.toString()))
	for (const id of ids) {
		let addrs = []
		try {
			const peer = await ctx.node.peerStore.get(peerIdFromString(id))
			addrs = peer.addresses.map(a => a.multiaddr.toString())
		} catch {}
		out.push({ id, addrs })
	}
	return out
}

function peersHandler (ctx) {
	return async (stream) => {
		try {
			await sendAll(stream, Buffer.from(JSON.stringify(await connectedPeers(ctx))))
			await stream.close()
		} catch (err) {
			stream.abort(err)
		}
	}
}

async function askPeers (ctx, peer) {
	const stream = await ctx.node.dialProtocol(peer, PEERS_PROTOCOL, { signal: AbortSignal.timeout(5000) })
	const reader = new StreamReader(stream)
	const parts = []
	await reader.readBody(MAX_REQUEST_BODY, c => parts.push(Buffer.from(c)))
	return JSON.parse(Buffer.concat(parts).toString('utf8'))
}

async function exchangePeers (ctx) {
	while (!ctx.stopSignal.aborted) {
		await sleep(EXCHANGE_INTERVAL_MS, ctx.stopSignal)
		const known = new Set(ctx.node.getConnections().map(c => c.remotePeer.toString()))
		for (const id of known) {
			if (ctx.stopSignal.aborted) return
			let list
			try {
				list = await askPeers(ctx, peerIdFromString(id))
			} catch {
				continue
			}
			for (const p of Array.isArray(list) ? list : []) {
				if (typeof p?.id !== 'string' || p.id === ctx.peerId || known.has(p.id)) continue
				known.add(p.id)
				try {
					const pid = peerIdFromString(p.id)
					await ctx.node.peerStore.merge(pid, { multiaddrs: (p.addrs ?? []).map(a => multiaddr(a)) })
					ctx.node.dial(pid, { signal: AbortSignal.timeout(10000) })
						.then(() => log('info', `connected to ${p.id}, learned from ${id}`))
						.catch(err => log('debug', `dial ${p.id} (learned from ${id}): ${err.message}`))
				} catch (err) {
					log('debug', `peer ${p.id} from ${id}: ${err.message}`)
				}
			}
		}
	}
}

// One dial of a static bootstrap address, as the real node's start-up does.
async function dialOnce (ctx, addr) {
	if (addr.endsWith(`/p2p/${ctx.peerId}`)) return
	try {
		await ctx.node.dial(multiaddr(addr), { signal: AbortSignal.any([ctx.stopSignal, AbortSignal.timeout(10000)]) })
	} catch {}
}

// Keeps one static bootstrap address dialled, retrying with backoff.
async function keepDialled (ctx, addr) {
	let ma
	try {
		ma = multiaddr(addr)
	} catch (err) {
		log('error', `bootstrap address ${addr} is not a multiaddr: ${err.message}`)
		return
	}
	const target = ma.getComponents().findLast(c => c.name === 'p2p')?.value ?? null
	if (target === ctx.peerId) return
	let backoff = 250
	let reported = null
	let connectedTo = target
	while (!ctx.stopSignal.aborted) {
		const live = connectedTo && ctx.node.getConnections().some(c => c.remotePeer.toString() === connectedTo && c.status === 'open')
		if (live) {
			backoff = 250
			await sleep(1000, ctx.stopSignal)
			continue
		}
		try {
			const conn = await ctx.node.dial(ma, { signal: AbortSignal.any([ctx.stopSignal, AbortSignal.timeout(10000)]) })
			connectedTo = conn.remotePeer.toString()
			log('info', `connected to bootstrap peer ${addr}`)
			reported = null
			backoff = 250
		} catch (err) {
			if (ctx.stopSignal.aborted) return
			if (reported !== err.message) {
				log('warn', `bootstrap ${addr}: ${err.message}; retrying with backoff`)
				reported = err.message
			}
			await sleep(backoff, ctx.stopSignal)
			backoff = Math.min(backoff * 2, 5000)
		}
	}
}

// Starts the node; stopSignal (aborted on SIGTERM/SIGINT) ends the start
// delay, the bootstrap dialers and running probes. Returns { ctx, stop } or
// null when stopSignal fired before the node was created.
export async function startNode ({ cfg, privateKey, peerId, faults, stopSignal }) {
	// httpPool: kept-alive HTTP-over-libp2p streams to each peer (probe.js);
	// httpStreams: how many such streams peers opened to this node.
	const ctx = { peerId, faults, log, stopSignal, seenPeers: new Set(), node: null, httpPool: new Map(), httpStreams: 0 }
	let server = null
	let stopping = null

	// The real node's SIGTERM cleanup: it announces its leave, sleeps 5 s,
	// deletes its database, then shuts down (up to 5 s more): stopMs in all.
	let db = null
	const stop = async (why, stopMs = 0) => {
		if (stopping) return stopping
		stopping = (async () => {
			log('info', `stopping (${why}): announcing leave, cleanup takes ${stopMs} ms`)
			const never = new AbortController().signal
			await sleep(stopMs / 2, never)
			if (db) removeDb(db)
			closeIdleStreams(ctx)
			if (server) {
				server.close()
				server.closeAllConnections()
			}
			if (ctx.node) await ctx.node.stop()
			await sleep(stopMs / 2, never)
		})()
		return stopping
	}

	if (faults.startDelayMs > 0) {
		log('info', `OTELA_FAKE_START_DELAY_MS: waiting ${faults.startDelayMs} ms before starting`)
		await sleep(faults.startDelayMs, stopSignal)
		if (stopSignal.aborted) return null
	}
	const node = await createLibp2p({
		privateKey,
		addresses: { listen: [`/ip4/0.0.0.0/tcp/${cfg.tcpport ?? 0}`] },
		transports: [tcp()],
		connectionEncrypters: [noise()],
		streamMuxers: [yamux()],
		services: { identify: identify() }
	})
	ctx.node = node
	node.addEventListener('peer:connect', evt => {
		const id = evt.detail.toString()
		if (!ctx.seenPeers.has(id)) log('info', `peer connected: ${id}`)
		ctx.seenPeers.add(id)
	})
	await node.handle(PING_PROTOCOL, pingHandler(ctx), { maxInboundStreams: 64, runOnLimitedConnection: true })
	await node.handle(HTTP_PROTOCOL, httpStreamHandler(ctx), { maxInboundStreams: 256, maxOutboundStreams: 256 })
	await node.handle(PEERS_PROTOCOL, peersHandler(ctx), { maxInboundStreams: 64 })
	db = openDb(peerId)
	log('info', `otela stand-in ${peerId} listening on ${node.getMultiaddrs().map(String).join(' ')}`)
	const f = Object.entries(faults).filter(([, v]) => v)
	if (f.length) log('info', `fault switches: ${f.map(([k, v]) => `${k}=${v}`).join(' ')}`)
	// As the real node: a blocking dial of every static peer first, then a
	// fixed wait, and only then the HTTP API.
	await Promise.all(cfg.bootstrap.map(addr => dialOnce(ctx, addr)))
	for (const addr of cfg.bootstrap) keepDialled(ctx, addr)
	exchangePeers(ctx)
	await sleep(faults.apiDelayMs, stopSignal)
	if (stopSignal.aborted) return { ctx, stop }
	try {
		server = await startHttpServer(ctx, cfg.port)
		log('info', `HTTP API on 0.0.0.0:${cfg.port}`)
	} catch (err) {
		// the real node logs it and runs on, without an API
		log('error', `HTTP API on 0.0.0.0:${cfg.port}: ${err.message}; running without it`)
	}
	return { ctx, stop }
}
