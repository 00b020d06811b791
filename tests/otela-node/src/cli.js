// Command line of the stand-in otela node: init, peer-id, start, probe.
// Exit codes as the real (cobra) one: 0 success, 1 failure or usage error.
// init prints its errors on stdout, as the real one does.
import http from 'node:http'
import path from 'node:path'
import { UserError } from './errors.js'

// Modules that pull in libp2p are loaded only by the commands needing them,
// so usage errors and --help stay quick.
const identity = () => import('./identity.js')
const readConfig = async file => (await import('./config.js')).readConfig(file)

const USAGE = `usage: otela <command> [flags]

Stand-in for OpenTela's otela node (js-libp2p: TCP + Noise + Yamux).

commands:
  init     --config-dir DIR             create DIR's identity (kept if present), and in $HOME
                                        ~/.config/opentela/cfg.yaml and a wallet
  peer-id  --config-dir DIR             print the PeerID of DIR's identity
  start    --config CFG [--config-dir DIR]
                                        run the node in the foreground until SIGTERM/SIGINT
                                        (DIR defaults to CFG's directory)
  probe    --target PEERID --kind KIND [--count N] [--bytes B] --config CFG [--timeout 60s]
                                        run a probe through the local node and print its
                                        JSON result; KIND: libp2p_ping, latency, throughput
  help                                  print this help

Fault switches for tests (environment, read by start): OTELA_FAKE_NEVER_HEALTHY=1,
OTELA_FAKE_NO_HTTP=1, OTELA_FAKE_PING_DROP=FRACTION, OTELA_FAKE_START_DELAY_MS=MS.
Timings like the real node's (shorter for quick tests): OTELA_FAKE_API_DELAY_MS (3000,
after the bootstrap dials), OTELA_FAKE_STOP_MS (10000, the SIGTERM cleanup),
OTELA_FAKE_WALLET_WRITE_MS (200, between the halves of init's accounts.json).
Beyond the real node: OTELA_KIND_CONNECT=1 adds the probe kind connect (a new
connection to the target and its first ping, per sample); without it the kind is
unknown (400), as on the real node.
`

class UsageError extends Error {}

const FLAGS = {
	init: ['config-dir'],
	'peer-id': ['config-dir'],
	start: ['config', 'config-dir'],
	probe: ['target', 'kind', 'count', 'bytes', 'config', 'timeout']
}

// Parses --flag VALUE and --flag=VALUE; returns a map, or 'help'.
function parseFlags (cmd, args) {
	const out = {}
	for (let i = 0; i < args.length; i++) {
		const a = args[i]
		if (a === '-h' || a === '--help') return 'help'
		const m = /^--?([a-z-]+)(?:=(.*))?$/.exec(a)
		if (!m) throw new UsageError(`unexpected argument ${JSON.stringify(a)}`)
		if (!FLAGS[cmd].includes(m[1])) throw new UsageError(`unknown flag --${m[1]} for ${cmd}`)
		let value = m[2]
		if (value === undefined) {
			if (i + 1 >= args.length) throw new UsageError(`flag --${m[1]} needs a value`)
			value = args[++i]
		}
		out[m[1]] = value
	}
	return out
}

function need (flags, name) {
	if (flags[name] === undefined || flags[name] === '') throw new UsageError(`missing --${name}`)
	return flags[name]
}

// Go-style duration ("60s", "1m30s", "500ms"); a bare number is seconds.
export function parseDuration (text) {
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
	const unit = { h: 3600000, m: 60000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 1e-6 }
	let ms = 0
	let rest = text
	if (rest === '') return null
	while (rest.length > 0) {
		const m = /^(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/.exec(rest)
		if (!m) return null
		ms += Number(m[1]) * unit[m[2]]
		rest = rest.slice(m[0].length)
	}
	return Math.round(ms)
}

function intFlag (flags, name) {
	if (flags[name] === undefined) return 0
	if (!/^\d+$/.test(flags[name])) throw new UsageError(`--${name} must be a non-negative integer`)
	return Number(flags[name])
}

async function cmdInit (flags) {
	const dir = need(flags, 'config-dir')
	const { initHome } = await import('./home.js')
	try {
		const lines = initHome()
		;(await identity()).initIdentity(dir)
		process.stdout.write(lines.join('\n') + '\n')
	} catch (err) {
		if (!(err instanceof UserError)) throw err
		process.stdout.write(`${err.message}\n`)
		return 1
	}
	return 0
}

async function cmdPeerId (flags) {
	process.stdout.write((await identity()).peerIdOf(need(flags, 'config-dir')) + '\n')
	return 0
}

async function cmdStart (flags) {
	const cfgFile = need(flags, 'config')
	const dir = flags['config-dir'] ?? path.dirname(cfgFile)
	const cfg = await readConfig(cfgFile)
	const privateKey = await (await identity()).loadPrivateKey(dir)
	const { peerIdFromPrivateKey } = await import('@libp2p/peer-id')
	const peerId = peerIdFromPrivateKey(privateKey).toString()
	const { startNode, readFaults, log } = await import('./node.js')
	let faults
	try {
		faults = readFaults()
	} catch (err) {
		log('error', `cannot start: ${err.message}`)
		return 1
	}
	const term = new AbortController()
	let running = null
	const stopMs = Number(process.env.OTELA_FAKE_STOP_MS ?? 10000)
	const done = new Promise(resolve => {
		const onSignal = sig => {
			if (term.signal.aborted) return
			term.abort()
			// The real cleanup's length, and then gone whatever libp2p does.
			setTimeout(() => resolve(0), stopMs + 2500).unref()
			Promise.resolve(running?.stop(sig, stopMs)).catch(err => log('warn', `stop: ${err.message}`))
				.finally(() => resolve(0))
		}
		process.on('SIGTERM', onSignal)
		process.on('SIGINT', onSignal)
	})
	try {
		running = await startNode({ cfg, privateKey, peerId, faults, stopSignal: term.signal })
	} catch (err) {
		log('error', `cannot start: ${err.message}`)
		process.exit(1)
	}
	if (term.signal.aborted && running) await running.stop('signal during start')
	const code = await done
	log('info', 'stopped')
	process.exit(code)
}

function postJson (port, urlPath, body, timeoutMs) {
	return new Promise((resolve, reject) => {
		const req = http.request({
			host: '127.0.0.1',
			port,
			path: urlPath,
			method: 'POST',
			headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
			timeout: timeoutMs
		}, res => {
			const parts = []
			res.on('data', c => parts.push(c))
			res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(parts).toString('utf8') }))
			res.on('error', reject)
		})
		req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
		req.on('error', reject)
		req.end(body)
	})
}

async function cmdProbe (flags) {
	const target = need(flags, 'target')
	const kind = need(flags, 'kind')
	const cfg = await readConfig(need(flags, 'config'))
	const timeoutMs = flags.timeout === undefined ? 60000 : parseDuration(flags.timeout)
	if (timeoutMs === null || timeoutMs <= 0) throw new UsageError(`--timeout ${JSON.stringify(flags.timeout)}: want a duration like 60s`)
	const body = JSON.stringify({ target, kind, count: intFlag(flags, 'count'), bytes: intFlag(flags, 'bytes'), timeout_ms: timeoutMs })
	let res
	try {
		res = await postJson(cfg.port, '/v1/probe/run', body, timeoutMs + 15000)
	} catch (err) {
		process.stderr.write(`otela probe: cannot reach the node at 127.0.0.1:${cfg.port} (${err.message}); is "otela start --config ${cfg.file}" running?\n`)
		return 1
	}
	let parsed = null
	try {
		parsed = JSON.parse(res.body)
	} catch {
		process.stdout.write(res.body.replace(/\n/g, ' ').trim() + '\n')
		process.stderr.write(`otela probe: HTTP ${res.status} with a body that is not JSON\n`)
		return 1
	}
	process.stdout.write(JSON.stringify(parsed) + '\n')
	if (res.status !== 200) process.stderr.write(`otela probe: HTTP ${res.status}: ${parsed?.error ?? ''}\n`)
	return res.status === 200 && parsed?.ok === true ? 0 : 1
}

const COMMANDS = { init: cmdInit, 'peer-id': cmdPeerId, start: cmdStart, probe: cmdProbe }

export async function main (argv) {
	const [cmd, ...rest] = argv
	if (cmd === undefined) {
		process.stderr.write(USAGE)
		return 1
	}
	if (cmd === 'help' || cmd === '--help' || cmd === '-h') {
		process.stdout.write(USAGE)
		return 0
	}
	try {
		if (!COMMANDS[cmd]) throw new UsageError(`unknown command ${JSON.stringify(cmd)}`)
		const flags = parseFlags(cmd, rest)
		if (flags === 'help') {
			process.stdout.write(USAGE)
			return 0
		}
		return await COMMANDS[cmd](flags)
	} catch (err) {
		if (err instanceof UsageError) {
			process.stderr.write(`Error: ${err.message}\nRun 'otela --help' for usage.\n`)
			return 1
		}
		if (err instanceof UserError) {
			process.stderr.write(`otela: ${err.message}\n`)
			return 1
		}
		process.stderr.write(`otela: ${err.stack ?? err.message}\n`)
		return 1
	}
}
