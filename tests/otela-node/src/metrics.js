// GET /metrics: the counters of the real node's Prometheus registry that
// say something about the path between two nodes, under go-libp2p's names
// and labels, so that what netprof reads there means the same on both:
// - libp2p_swarm_connections_opened_total / _closed_total by dir
//   (inbound, outbound) and transport (tcp, or p2p-circuit for a
//   connection through a relay that this node dialled: go-libp2p's
//   circuit transport labels only its dials so, and a circuit it accepts
//   comes out of the upgrader as an inbound "tcp" one), counted when a
//   connection opens and closes; a node's open circuits are the
//   difference;
// - libp2p_relaysvc_connections_total{type} (circuits this node relayed,
//   opened and closed), libp2p_relaysvc_data_transferred_bytes_total
//   (bytes it carried both ways) and libp2p_relaysvc_reservations_total
//   {type} (slots it granted), as its relay service counts them;
// - libp2p_relaysvc_status: 1 while the relay service runs (a public
//   node: go-libp2p's relay manager starts it only then), 0 otherwise;
// - libp2p_autorelay_status: 1 while AutoRelay runs (a private node), 0
//   otherwise;
// - libp2p_holepunch_outcomes_total{side,num_attempts,outcome} (a DCUtR
//   exchange's end: initiator after its last attempt, receiver after its
//   dial; success, failed, or no_suitable_address when the other side
//   gave no address to dial) and libp2p_holepunch_direct_dials_total
//   {outcome} (the initiator's direct dial before a punch), only where
//   the hole punch service runs, as go-libp2p's tracer, which sets every
//   outcome's series to 0 at start.
// A series is there once it has counted, as with client_golang's
// CounterVec (the relay service's are there from the start).
const SWARM_LABELS = 'early_muxer="false",ip_version="ip4",muxer="/yamux/1.0.0",security="/noise"'

export function newMetrics () {
	return {
		opened: new Map(),
		closed: new Map(),
		relayOpened: 0,
		relayClosed: 0,
		relayBytes: 0,
		reservations: 0,
		relayStatus: 0,
		autorelay: 0,
		holepunch: null,
		directDials: new Map()
	}
}

const transportOf = c => c.direction !== 'inbound' && c.remoteAddr.toString().includes('/p2p-circuit') ? 'p2p-circuit' : 'tcp'

function count (map, c) {
	const key = `${c.direction === 'inbound' ? 'inbound' : 'outbound'} ${transportOf(c)}`
	map.set(key, (map.get(key) ?? 0) + 1)
}

export function connectionOpened (m, c) { count(m.opened, c) }
export function connectionClosed (m, c) { count(m.closed, c) }

// Counts what the relay service relays: its CONNECTs that joined two
// peers (a stop stream opened to the target), the bytes both streams
// carry, and the reservations it granted. The service's methods are
// wrapped on the instance, which its handlers call through `this`.
export function instrumentRelay (m, service) {
	if (!service) return
	m.relayStatus = 1
	const stopHop = service.stopHop.bind(service)
	const handleReserve = service.handleReserve.bind(service)
	// The stop stream to the target carries both ways: what comes from
	// the target arrives as its messages, what goes to it through its
	// send(). A stream delivers its messages once something listens, so
	// the count listens only beside the relay's own listener, never first.
	const counted = stream => {
		const add = stream.addEventListener.bind(stream)
		const send = stream.send.bind(stream)
		let hooked = false
		stream.addEventListener = (type, fn, opts) => {
			add(type, fn, opts)
			if (type === 'message' && !hooked) {
				hooked = true
				add('message', evt => { m.relayBytes += evt.data.byteLength })
			}
		}
		stream.send = (data, ...rest) => {
			m.relayBytes += data.byteLength
			return send(data, ...rest)
		}
		add('close', () => { m.relayClosed++ }, { once: true })
	}
	service.stopHop = async (...args) => {
		const stream = await stopHop(...args)
		if (stream != null) {
			m.relayOpened++
			counted(stream)
		}
		return stream
	}
	service.handleReserve = async (arg, options) => {
		const before = service.reservationStore?.get(arg.connection.remotePeer)
		await handleReserve(arg, options)
		if (!before && service.reservationStore?.get(arg.connection.remotePeer)) m.reservations++
	}
}

// The hole punch service's tracer: its outcomes' series, every one 0.
export function holePunchEnabled (m) {
	m.holepunch = new Map()
	for (const side of ['initiator', 'receiver']) {
		for (const n of ['1', '2', '3', '4']) {
			for (const outcome of ['failed', 'no_suitable_address', 'success']) m.holepunch.set(`${n} ${outcome} ${side}`, 0)
		}
	}
}

export function holePunchFinished (m, side, attempts, outcome) {
	if (!m.holepunch) return
	const key = `${attempts} ${outcome} ${side}`
	m.holepunch.set(key, (m.holepunch.get(key) ?? 0) + 1)
}

export function directDialFinished (m, ok) {
	const outcome = ok ? 'success' : 'failed'
	m.directDials.set(outcome, (m.directDials.get(outcome) ?? 0) + 1)
}

export function metricsText (m) {
	const lines = []
	const swarm = (name, help, map) => {
		lines.push(`# HELP ${name} Number of connections`, `# TYPE ${name} counter`)
		for (const key of [...map.keys()].sort()) {
			const [dir, transport] = key.split(' ')
			lines.push(`${name}{dir="${dir}",${SWARM_LABELS},transport="${transport}"} ${map.get(key)}`)
		}
	}
	swarm('libp2p_swarm_connections_opened_total', 'opened', m.opened)
	swarm('libp2p_swarm_connections_closed_total', 'closed', m.closed)
	lines.push('# HELP libp2p_relaysvc_connections_total Relay Connection Total',
		'# TYPE libp2p_relaysvc_connections_total counter',
		`libp2p_relaysvc_connections_total{type="closed"} ${m.relayClosed}`,
		`libp2p_relaysvc_connections_total{type="opened"} ${m.relayOpened}`,
		'# HELP libp2p_relaysvc_data_transferred_bytes_total Bytes Transferred Total',
		'# TYPE libp2p_relaysvc_data_transferred_bytes_total counter',
		`libp2p_relaysvc_data_transferred_bytes_total ${m.relayBytes}`,
		'# HELP libp2p_relaysvc_reservations_total Relay Reservation Request',
		'# TYPE libp2p_relaysvc_reservations_total counter',
		'libp2p_relaysvc_reservations_total{type="closed"} 0',
		`libp2p_relaysvc_reservations_total{type="opened"} ${m.reservations}`,
		'# HELP libp2p_relaysvc_status Relay Status',
		'# TYPE libp2p_relaysvc_status gauge',
		`libp2p_relaysvc_status ${m.relayStatus}`,
		'# HELP libp2p_autorelay_status relay finder active',
		'# TYPE libp2p_autorelay_status gauge',
		`libp2p_autorelay_status ${m.autorelay}`)
	if (m.holepunch) {
		lines.push('# HELP libp2p_holepunch_direct_dials_total Direct Dials Total',
			'# TYPE libp2p_holepunch_direct_dials_total counter')
		for (const outcome of [...m.directDials.keys()].sort()) lines.push(`libp2p_holepunch_direct_dials_total{outcome="${outcome}"} ${m.directDials.get(outcome)}`)
		lines.push('# HELP libp2p_holepunch_outcomes_total Hole Punch outcomes overall',
			'# TYPE libp2p_holepunch_outcomes_total counter')
		for (const key of [...m.holepunch.keys()].sort()) {
			const [n, outcome, side] = key.split(' ')
			lines.push(`libp2p_holepunch_outcomes_total{num_attempts="${n}",outcome="${outcome}",side="${side}"} ${m.holepunch.get(key)}`)
		}
	}
	return lines.join('\n') + '\n'
}
