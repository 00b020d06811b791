// `otela start`: a libp2p node (TCP + Noise + Yamux, identify, circuit
// relay v2 as a service and a transport) serving the ping protocol and
// HTTP-over-libp2p, the local HTTP API, and the bootstrap dialer that keeps
// every static bootstrap peer connected; a private node reserves relay
// slots (relay.js) and every node punches holes unless told not to
// (punch.js). Fault switches come from OTELA_FAKE_* environment variables
// (see docs/otela-node.md).
import http from 'node:http'
import { once } from 'node:events'
import { appendFileSync } from 'node:fs'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@libp2p/noise'
import { yamux } from '@libp2p/yamux'
import { identify } from '@libp2p/identify'
import { circuitRelayTransport } from '@libp2p/circuit-relay-v2'
import { multiaddr } from '@multiformats/multiaddr'
import { peerIdFromString } from '@libp2p/peer-id'
import { handle } from './api.js'
import { PING_PROTOCOL, PING_SIZE, HTTP_PROTOCOL, closeIdleStreams } from './probe.js'
import { StreamReader, sendAll, readRequest, writeResponse, MAX_REQUEST_BODY } from './wire.js'
import { openDb, removeDb } from './home.js'
import { relayServer, relayDescription, isPrivate, startAutoRelay, streamTo, isCircuit } from './relay.js'
import { dialRanked } from './dial.js'
import { startHolePunch } from './punch.js'
import { newMetrics, connectionOpened, connectionClosed, instrumentRelay } from './metrics.js'

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
		noHolePunch: flag('OTELA_FAKE_NO_HOLEPUNCH'),
		firewall: flag('OTELA_FAKE_FIREWALL'),
		relayLimited: flag('OTELA_FAKE_RELAY_LIMITED'),
		relayBootMs: env.OTELA_FAKE_RELAY_BOOT_MS === undefined || env.OTELA_FAKE_RELAY_BOOT_MS === '' ? 5000 : envNumber('OTELA_FAKE_RELAY_BOOT_MS', env, 0, 3600000),
		kindConnect: flag('OTELA_KIND_CONNECT'),
		hugeAnswer: envNumber('OTELA_FAKE_HUGE_ANSWER', env, 0, 16 * 1024 * 1024),
		apiDelayMs: env.OTELA_FAKE_API_DELAY_MS === undefined || env.OTELA_FAKE_API_DELAY_MS === '' ? 3000 : envNumber('OTELA_FAKE_API_DELAY_MS', env, 0, 3600000),
		dialWaitMs: env.OTELA_FAKE_DIAL_WAIT_MS === undefined || env.OTELA_FAKE_DIAL_WAIT_MS === '' ? 10000 : envNumber('OTELA_FAKE_DIAL_WAIT_MS', env, 1, 3600000)
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

// OTELA_FAKE_TRACEPARENT_LOG=FILE: each local API request's W3C
// traceparent header, as "METHOD TARGET VALUE" lines, so a test sees the
// trace context a node that traces would join.
function noteTraceparent (req) {
	const file = process.env.OTELA_FAKE_TRACEPARENT_LOG
	const value = req.headers.traceparent
	if (!file || value === undefined) return
	try {
		appendFileSync(file, `${req.method} ${req.url} ${value}\n`)
	} catch (err) {
		log('warn', `OTELA_FAKE_TRACEPARENT_LOG ${file}: ${err.message}`)
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
		noteTraceparent(req)
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
// asked on PEERS_PROTOCOL answers with the peers it is connected to, their
// addresses (a private peer's circuit addresses among them) and the node
// records it knows (each node's own, as the real node's CRDT carries them:
// role, public address and port, relay_peer), itself first; the node dials
// the peers it does not know yet, so a mesh converges through any
// connected peer, relayed where a direct dial fails.
export const PEERS_PROTOCOL = '/otela-standin/peers/1.0.0'
const EXCHANGE_INTERVAL_MS = 2000

async function connectedPeers (ctx) {
	const out = [{ id: ctx.peerId, addrs: ctx.node.getMultiaddrs().map(String), record: ctx.self, rev: ctx.selfRev }]
	const ids = new Set(ctx.node.getConnections().filter(c => c.status === 'open').map(c => c.remotePeer.toString()))
	for (const id of ids) {
		// the addresses the peer reported itself (identify may have left
		// its circuit addresses out of the peer store), else the store's
		let addrs = ctx.reported.get(id) ?? []
		if (addrs.length === 0) {
			try {
				const peer = await ctx.node.peerStore.get(peerIdFromString(id))
				addrs = peer.addresses.map(a => a.multiaddr.toString())
			} catch {}
		}
		const known = ctx.records.get(id)
		out.push({ id, addrs, record: known?.record, rev: known?.rev })
	}
	return out
}

// A node record learned from a peer: kept when newer than the one known.
function learnRecord (ctx, entry) {
	if (typeof entry?.id !== 'string' || entry.id === ctx.peerId) return
	if (entry.record === null || typeof entry.record !== 'object' || entry.record.id !== entry.id) return
	const rev = Number.isInteger(entry.rev) ? entry.rev : 0
	const known = ctx.records.get(entry.id)
	if (!known || rev > known.rev) ctx.records.set(entry.id, { record: entry.record, rev })
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

// One exchange, bounded (5 s) as a whole: a peer that never finishes its
// answer must not stop the node's exchanges with every other.
async function askPeers (ctx, peer) {
	const stream = await streamTo(ctx.node, peer, PEERS_PROTOCOL, { signal: AbortSignal.timeout(5000) })
	const reader = new StreamReader(stream)
	const parts = []
	let timer
	const limit = new Promise((resolve, reject) => {
		timer = setTimeout(() => {
			stream.abort(new Error('peer exchange: no answer within 5000 ms'))
			reject(new Error('peer exchange: no answer within 5000 ms'))
		}, 5000)
	})
	try {
		await Promise.race([reader.readBody(MAX_REQUEST_BODY, c => parts.push(Buffer.from(c))), limit])
	} finally {
		clearTimeout(timer)
	}
	return JSON.parse(Buffer.concat(parts).toString('utf8'))
}

async function exchangePeers (ctx) {
	// peers being dialled: one dial at a time each
	const dialling = new Set()
	while (!ctx.stopSignal.aborted) {
		await sleep(EXCHANGE_INTERVAL_MS, ctx.stopSignal)
		const known = new Set(ctx.node.getConnections().filter(c => c.status === 'open').map(c => c.remotePeer.toString()))
		for (const id of known) {
			if (ctx.stopSignal.aborted) return
			let list
			try {
				list = await askPeers(ctx, peerIdFromString(id))
			} catch (err) {
				log('debug', `peer exchange with ${id}: ${err.message}`)
				continue
			}
			for (const p of Array.isArray(list) ? list : []) {
				learnRecord(ctx, p)
				// the peer's own addresses, its circuits among them, so
				// that peers which cannot dial it learn how to reach it
				if (p?.id === id && Array.isArray(p.addrs)) {
					ctx.reported.set(id, p.addrs.filter(a => typeof a === 'string'))
					try {
						await ctx.node.peerStore.merge(peerIdFromString(id), { multiaddrs: p.addrs.map(a => multiaddr(a)) })
					} catch {}
				}
				if (typeof p?.id !== 'string' || p.id === ctx.peerId || known.has(p.id) || dialling.has(p.id)) continue
				known.add(p.id)
				try {
					const pid = peerIdFromString(p.id)
					await ctx.node.peerStore.merge(pid, { multiaddrs: (p.addrs ?? []).map(a => multiaddr(a)) })
					dialling.add(p.id)
					// direct and circuit addresses as go-libp2p ranks them
					// (dial.js), where js-libp2p's dial would wait on a
					// firewalled direct address before trying the circuit
					dialRanked(ctx.node, p.id, p.addrs ?? [], AbortSignal.any([ctx.stopSignal, AbortSignal.timeout(10000)]))
						.then(() => log('info', `connected to ${p.id}, learned from ${id}`))
						.catch(err => log('debug', `dial ${p.id} (learned from ${id}): ${err.message}`))
						.finally(() => dialling.delete(p.id))
				} catch (err) {
					log('debug', `peer ${p.id} from ${id}: ${err.message}`)
				}
			}
		}
	}
}

// One dial of a static bootstrap address, as the real node's start-up
// does, given up after OTELA_FAKE_DIAL_WAIT_MS (a peer behind a firewall
// that drops it holds the start that long).
async function dialOnce (ctx, addr) {
	if (addr.endsWith(`/p2p/${ctx.peerId}`)) return
	const wait = AbortSignal.timeout(ctx.faults.dialWaitMs)
	try {
		await ctx.node.dial(multiaddr(addr), { signal: AbortSignal.any([ctx.stopSignal, wait]) })
	} catch {
		if (wait.aborted && !ctx.stopSignal.aborted) log('info', `static peer ${addr}: no connection within ${ctx.faults.dialWaitMs} ms, starting without it`)
	}
}

// The circuit addresses the node learned for a peer (peer exchange).
async function circuitsOf (ctx, id) {
	try {
		return (await ctx.node.peerStore.get(peerIdFromString(id))).addresses.map(a => a.multiaddr).filter(isCircuit)
	} catch {
		return []
	}
}

// Keeps one static bootstrap address dialled, retrying with backoff; a
// retry dials the peer's learned circuits too, as go-libp2p's Connect
// dials every address its peer store holds for the peer.
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
			const signal = AbortSignal.any([ctx.stopSignal, AbortSignal.timeout(10000)])
			const conn = target
				? await dialRanked(ctx.node, target, [ma, ...await circuitsOf(ctx, target)], signal)
				: await ctx.node.dial(ma, { signal })
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

// The node's own record, in the real node's Peer shape (its JSON fields
// and their order; internal/protocol/node_table.go), as its table shows it.
export function ownRecord (cfg, peerId, relayPeer = '') {
	return {
		id: peerId,
		latency: 0,
		privileged: false,
		owner: '',
		current_offering: null,
		role: [cfg.role || 'worker'],
		status: '',
		available_offering: null,
		service: [],
		last_seen: Math.floor(Date.now() / 1000),
		version: '',
		public_address: cfg.publicAddr || '',
		public_port: String(cfg.tcpport ?? ''),
		hardware: { gpus: [], host_memory: 0, host_memory_bandwidth: 0, host_memory_used: 0 },
		...(relayPeer ? { relay_peer: relayPeer } : {}),
		connected: true,
		load: null,
		capabilities: ['service-policy-v2']
	}
}

// Starts the node; stopSignal (aborted on SIGTERM/SIGINT) ends the start
// delay, the bootstrap dialers and running probes. Returns { ctx, stop } or
// null when stopSignal fired before the node was created.
export async function startNode ({ cfg, privateKey, peerId, faults, stopSignal }) {
	// httpPool: kept-alive HTTP-over-libp2p streams to each peer (probe.js);
	// httpStreams: how many such streams peers opened to this node.
	// records: node records learned from peers; self: the node's own (with
	// selfRev, bumped at each change); punch: whether the hole punch
	// service exists.
	const ctx = {
		peerId, cfg, faults, log, stopSignal, seenPeers: new Set(), node: null, httpPool: new Map(), httpStreams: 0,
		records: new Map(), reported: new Map(), self: ownRecord(cfg, peerId), selfRev: 1, punch: !faults.noHolePunch, punching: new Set(),
		metrics: newMetrics(), dialBackoff: new Map()
	}
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
		addresses: {
			listen: [`/ip4/0.0.0.0/tcp/${cfg.tcpport ?? 0}`],
			// public-addr is announced beside the listen addresses, as the
			// real node's AddrsFactory does
			...(cfg.publicAddr ? { appendAnnounce: [`/ip4/${cfg.publicAddr}/tcp/${cfg.tcpport ?? 0}`] } : {})
		},
		transports: [tcp(), circuitRelayTransport({ reservationCompletionTimeout: 10000 })],
		connectionEncrypters: [noise()],
		streamMuxers: [yamux()],
		// the relay service only on a public node: go-libp2p's relay
		// manager (EnableRelayService) runs it while the node's
		// reachability is public, and the real node forces private ones
		services: { identify: identify(), ...(isPrivate(cfg) ? {} : { relay: relayServer(faults.relayLimited) }) },
		// OTELA_FAKE_FIREWALL: a stateful firewall in front of the node,
		// for tests on loopback (the lab's sites have real ones): nothing
		// opens a connection in but through a relay
		...(faults.firewall ? { connectionGater: { denyInboundConnection: maConn => !maConn.remoteAddr.toString().includes('/p2p-circuit') } } : {})
	})
	ctx.node = node
	// the path of every connection, for the log: direct or through which relay
	node.addEventListener('connection:open', evt => {
		const c = evt.detail
		connectionOpened(ctx.metrics, c)
		log('info', `connection ${c.direction} ${c.remotePeer}: ${c.remoteAddr}${c.limits ? ' (limited)' : ''}`)
	})
	node.addEventListener('connection:close', evt => {
		const c = evt.detail
		connectionClosed(ctx.metrics, c)
		log('info', `connection closed ${c.remotePeer}: ${c.remoteAddr}`)
	})
	instrumentRelay(ctx.metrics, node.services.relay)
	node.addEventListener('peer:connect', evt => {
		const id = evt.detail.toString()
		if (!ctx.seenPeers.has(id)) log('info', `peer connected: ${id}`)
		ctx.seenPeers.add(id)
	})
	await node.handle(PING_PROTOCOL, pingHandler(ctx), { maxInboundStreams: 64, runOnLimitedConnection: true })
	await node.handle(HTTP_PROTOCOL, httpStreamHandler(ctx), { maxInboundStreams: 256, maxOutboundStreams: 256, runOnLimitedConnection: true })
	await node.handle(PEERS_PROTOCOL, peersHandler(ctx), { maxInboundStreams: 64, runOnLimitedConnection: true })
	db = openDb(peerId)
	log('info', `otela stand-in ${peerId} listening on ${node.getMultiaddrs().map(String).join(' ')}`)
	log('info', isPrivate(cfg) ? 'relay service: off (private; go-libp2p runs it only while public)' : relayDescription(faults.relayLimited))
	await startHolePunch(ctx)
	if (isPrivate(cfg)) {
		ctx.metrics.autorelay = 1
		log('info', `private (reachability ${cfg.reachability || 'unset'}${cfg.publicAddr ? '' : ', no public-addr'}): reserving relay slots on connected peers after ${faults.relayBootMs} ms`)
		startAutoRelay(ctx, {
			bootMs: faults.relayBootMs,
			// the first relay is the one the node table names
			onReserved: relay => {
				if (ctx.self.relay_peer) return
				ctx.self = ownRecord(cfg, peerId, relay)
				ctx.selfRev++
			}
		})
	} else {
		log('info', 'public: no relay reservations')
	}
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
