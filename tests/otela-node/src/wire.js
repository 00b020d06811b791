// Byte-level helpers over libp2p streams (js-libp2p 3.x stream API) and the
// HTTP/1.1 framing used to carry the node's HTTP API over libp2p. As Go's
// net/http over go-libp2p-gostream in the real node: a stream is an HTTP/1.1
// connection kept alive between requests (responses carry Content-Length),
// until either side sends `Connection: close` or closes the stream.

export const MAX_HEAD = 64 * 1024
export const MAX_REQUEST_BODY = 1024 * 1024

function asBuffer (chunk) {
	const u = typeof chunk.subarray === 'function' ? chunk.subarray() : chunk
	return Buffer.from(u.buffer, u.byteOffset, u.byteLength)
}

// Pull-style reader over a stream's async iterator, keeping unread bytes.
export class StreamReader {
	constructor (stream) {
		this.iterator = stream[Symbol.asyncIterator]()
		this.buffered = Buffer.alloc(0)
		this.ended = false
	}

	// Reads one more chunk into the buffer; false at end of stream.
	async fill () {
		if (this.ended) return false
		const { done, value } = await this.iterator.next()
		if (done) {
			this.ended = true
			return false
		}
		const chunk = asBuffer(value)
		this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk])
		return true
	}

	take (n) {
		const out = this.buffered.subarray(0, n)
		this.buffered = this.buffered.subarray(n)
		return out
	}

	async readExact (n) {
		while (this.buffered.length < n) {
			if (!(await this.fill())) {
				throw new Error(`stream closed after ${this.buffered.length} of ${n} bytes`)
			}
		}
		return Buffer.from(this.take(n))
	}

	// Reads up to and including the blank line ending an HTTP head; with
	// endOk, null when the stream ends cleanly before any byte of it (a
	// kept-alive connection closed between requests).
	async readHead ({ endOk = false } = {}) {
		for (;;) {
			const end = this.buffered.indexOf('\r\n\r\n')
			if (end >= 0) return this.take(end + 4).toString('latin1')
			if (this.buffered.length > MAX_HEAD) throw new Error('HTTP head too large')
			if (!(await this.fill())) {
				if (endOk && this.buffered.length === 0) return null
				throw new Error(this.buffered.length === 0 ? 'stream closed before any response' : 'stream closed inside HTTP head')
			}
		}
	}

	// Calls onChunk(buffer) for each body chunk until n bytes or end of
	// stream; returns the number of bytes seen.
	async readBody (n, onChunk) {
		let seen = 0
		for (;;) {
			if (this.buffered.length > 0) {
				const part = this.take(Math.min(n - seen, this.buffered.length))
				seen += part.length
				if (onChunk) onChunk(part)
			}
			if (seen >= n) return seen
			if (!(await this.fill())) return seen
		}
	}
}

// Sends data, waiting for the stream to drain when its buffer is full.
export async function sendAll (stream, data, signal) {
	if (!stream.send(data)) await stream.onDrain({ signal })
}

function parseHeaders (lines) {
	const headers = {}
	for (const line of lines) {
		const colon = line.indexOf(':')
		if (colon <= 0) throw new Error(`malformed HTTP header line ${JSON.stringify(line)}`)
		headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
	}
	return headers
}

function contentLength (headers) {
	const value = headers['content-length']
	if (value === undefined) return null
	if (!/^\d+$/.test(value)) throw new Error(`bad Content-Length ${JSON.stringify(value)}`)
	return Number(value)
}

// A request or response that ends its connection: `Connection: close`, or
// HTTP/1.0 without `Connection: keep-alive`.
export function wantsClose (version, headers) {
	const conn = (headers.connection ?? '').toLowerCase()
	return conn.split(',').some(t => t.trim() === 'close') ||
		(version === '1.0' && !conn.split(',').some(t => t.trim() === 'keep-alive'))
}

// Server side: reads the next request from the stream; null when the client
// closed the stream between requests.
export async function readRequest (reader) {
	const text = await reader.readHead({ endOk: true })
	if (text === null) return null
	const lines = text.split('\r\n').slice(0, -2)
	const m = /^([A-Z]+) (\S+) HTTP\/(1\.[01])$/.exec(lines[0] ?? '')
	if (!m) throw new Error(`malformed HTTP request line ${JSON.stringify(lines[0])}`)
	const headers = parseHeaders(lines.slice(1))
	const length = contentLength(headers) ?? 0
	if (length > MAX_REQUEST_BODY) throw new Error('request body too large')
	const parts = []
	const got = await reader.readBody(length, c => parts.push(Buffer.from(c)))
	if (got < length) throw new Error('stream closed inside request body')
	return { method: m[1], target: m[2], headers, body: Buffer.concat(parts), close: wantsClose(m[3], headers) }
}

const REASONS = { 200: 'OK', 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error', 503: 'Service Unavailable' }

// Server side: writes a handler response (see api.js) to the stream; with
// close, says `Connection: close` and closes the stream after it, otherwise
// the stream stays open for the client's next request.
export async function writeResponse (stream, res, { close = true } = {}) {
	const length = res.body ? res.body.length : res.length
	let head = `HTTP/1.1 ${res.status} ${REASONS[res.status] ?? 'Status'}\r\n`
	for (const [k, v] of Object.entries(res.headers)) head += `${k}: ${v}\r\n`
	head += `Content-Length: ${length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`
	await sendAll(stream, Buffer.from(head, 'latin1'))
	if (res.body) {
		if (res.body.length > 0) await sendAll(stream, res.body)
	} else {
		for await (const chunk of res.chunks()) await sendAll(stream, chunk)
	}
	if (close) await stream.close()
}

// Client side: writes a request on a kept-alive stream (no `Connection:
// close`, no half-close, as Go's http.Transport); with close, asks for the
// stream's end and half-closes it.
export async function writeRequest (stream, method, target, host, body, { close = false } = {}) {
	let head = `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: otela-standin\r\n`
	if (close) head += 'Connection: close\r\n'
	if (body) head += `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`
	await sendAll(stream, Buffer.from(head + '\r\n', 'latin1'))
	if (body) await sendAll(stream, body)
	if (close) await stream.close()
}

// Client side: reads the response head; returns { status, headers, length,
// close } (close: the server ends the stream after this response).
export async function readResponseHead (reader) {
	const lines = (await reader.readHead()).split('\r\n').slice(0, -2)
	const m = /^HTTP\/(1\.[01]) (\d{3})/.exec(lines[0] ?? '')
	if (!m) throw new Error(`malformed HTTP status line ${JSON.stringify(lines[0])}`)
	const headers = parseHeaders(lines.slice(1))
	return { status: Number(m[2]), headers, length: contentLength(headers), close: wantsClose(m[1], headers) }
}
