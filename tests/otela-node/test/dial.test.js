// A learned peer dialled as go-libp2p's swarm does (DefaultDialRanker):
// direct and circuit addresses in parallel, the circuits RELAY_DELAY_MS
// later, the first connection kept. The
// peer here is firewalled and reserves on a public relay; its direct
// address is a firewall that holds the dial (a listener that accepts and
// never answers, as dropped SYNs hold it). Through the circuit the ranked
// dial gets there within a 3 s limit, where js-libp2p's own dial, one
// address after the other (6 s each), gets nowhere.
import '../src/polyfill.js'
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@libp2p/noise'
import { yamux } from '@libp2p/yamux'
import { identify } from '@libp2p/identify'
import { circuitRelayTransport } from '@libp2p/circuit-relay-v2'
import { peerIdFromString } from '@libp2p/peer-id'
import { multiaddr } from '@multiformats/multiaddr'
import { tmpDir, makeNode, startNode, stopNode, waitHealthy, eventually, api } from '../testlib/helpers.js'
import { dialOrder, dialRanked, RELAY_DELAY_MS } from '../src/dial.js'

function writeCfg (node, bootstrap, extra = {}) {
	const lines = [`port: "${node.httpPort}"`, `tcpport: "${node.tcpPort}"`, 'cleanslate: true']
	for (const [k, v] of Object.entries({ reachability: 'auto', ...extra })) lines.push(`${k}: "${v}"`)
	lines.push('bootstrap:', `  static: [ ${bootstrap.map(a => `"${a}"`).join(', ')} ]`, '')
	fs.writeFileSync(node.cfg, lines.join('\n'))
}

describe('a learned peer behind a direct address that holds the dial', () => {
	let r, b, silent, a
	const held = []
	before(async () => {
		const root = tmpDir('held')
		r = await makeNode(root, 'r')
		b = await makeNode(root, 'b')
		writeCfg(r, [], { 'public-addr': '127.0.0.1', reachability: 'public', role: 'relay' })
		writeCfg(b, [r.addr])
		startNode(r)
		await waitHealthy(r)
		startNode(b, { OTELA_FAKE_RELAY_BOOT_MS: '200', OTELA_FAKE_FIREWALL: '1' })
		await waitHealthy(b)
		await eventually('b names its relay', async () => (await api(b, 'GET', '/v1/self')).json.relay_peer === r.peerId, 30000)
		silent = net.createServer(sock => held.push(sock))
		await new Promise(resolve => silent.listen(0, '127.0.0.1', resolve))
	})
	after(async () => {
		for (const s of held) s.destroy()
		silent?.close()
		await a?.stop()
		for (const n of [b, r]) await stopNode(n)
	})

	const newNode = () => createLibp2p({
		transports: [tcp(), circuitRelayTransport()],
		connectionEncrypters: [noise()],
		streamMuxers: [yamux()],
		services: { identify: identify() }
	})
	const addrs = () => [`/ip4/127.0.0.1/tcp/${silent.address().port}`, `${r.addr}/p2p-circuit`]

	it('circuits wait RELAY_DELAY_MS behind the direct addresses, none without any', () => {
		const order = list => dialOrder(list.map(a => multiaddr(a))).map(x => [x.addrs.map(String), x.delayMs])
		const circuit = `${r.addr}/p2p-circuit`
		assert.equal(RELAY_DELAY_MS, 500)
		assert.deepEqual(order([circuit, '/ip4/198.18.0.7/tcp/4001', '/ip4/10.0.0.7/tcp/4001']),
			[[['/ip4/198.18.0.7/tcp/4001', '/ip4/10.0.0.7/tcp/4001'], 0], [[circuit], 500]])
		assert.deepEqual(order([circuit]), [[[circuit], 0]])
	})

	it('js-libp2p\'s own dial is held by the direct address past the limit', async () => {
		const c = await newNode()
		try {
			const pid = peerIdFromString(b.peerId)
			await c.peerStore.merge(pid, { multiaddrs: addrs().map(x => multiaddr(x)) })
			await assert.rejects(c.dial(pid, { signal: AbortSignal.timeout(3000) }))
		} finally {
			await c.stop()
		}
	})

	it('the ranked dial reaches it through the circuit within the limit, the direct address dialled beside it', async () => {
		a = await newNode()
		const before = held.length
		const conn = await dialRanked(a, b.peerId, addrs(), AbortSignal.timeout(3000))
		assert.equal(conn.remotePeer.toString(), b.peerId)
		assert.match(conn.remoteAddr.toString(), /\/p2p-circuit/)
		assert.ok(a.getConnections(peerIdFromString(b.peerId)).includes(conn), 'the connection manager holds it')
		await eventually('the direct address dialled too', async () => held.length > before, 5000)
	})
})
