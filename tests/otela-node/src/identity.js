// Persistent libp2p identity of a node: a private key stored where the real
// node keeps it, D/keys/id under the config dir (internal/protocol/key.go),
// as its libp2p protobuf encoding (the same bytes go-libp2p's
// MarshalPrivateKey writes), file mode 0600, so a real otela reads a key
// the stand-in made and the other way round. RSA-2048 by default, as the
// real otela init makes (PeerIDs "Qm..."); OTELA_FAKE_KEY=ed25519 at init
// makes an Ed25519 key ("12D3KooW...").
//
// init and peer-id use only node:crypto and encode the key and PeerID by
// hand: loading js-libp2p costs a few hundred milliseconds of CPU per call,
// where the real otela (a Go binary) answers in milliseconds, and the lab
// runs these on many hosts sharing a few cores. start hands the same bytes
// to libp2p's own decoder (loadPrivateKey), and the mesh tests dial nodes by
// the PeerID printed here, so the two encodings are held equal.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from './errors.js'

export const KEY_FILE = path.join('keys', 'id')

// Protobuf prefixes of libp2p's PrivateKey/PublicKey messages for Ed25519:
// field 1 (KeyType) = 1, field 2 (Data) of 64 (seed || public) or 32 bytes.
const PRIVATE_PREFIX = Buffer.from([0x08, 0x01, 0x12, 0x40])
const PUBLIC_PREFIX = Buffer.from([0x08, 0x01, 0x12, 0x20])
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

export class IdentityError extends UserError {}

export function keyPath (configDir) {
	return path.join(configDir, KEY_FILE)
}

export function base58 (bytes) {
	let n = BigInt('0x' + bytes.toString('hex'))
	let out = ''
	while (n > 0n) {
		out = BASE58[Number(n % 58n)] + out
		n /= 58n
	}
	for (const b of bytes) {
		if (b !== 0) break
		out = '1' + out
	}
	return out
}

// PeerID of an Ed25519 public key: the identity multihash (code 0x00,
// length 36) of its protobuf encoding, in base58btc ("12D3KooW...").
function peerIdOfPublic (pub) {
	const proto = Buffer.concat([PUBLIC_PREFIX, pub])
	return base58(Buffer.concat([Buffer.from([0x00, proto.length]), proto]))
}

// libp2p's protobuf varint (lengths of RSA keys need two bytes).
function varint (n) {
	const out = []
	while (n >= 0x80) {
		out.push((n & 0x7f) | 0x80)
		n >>>= 7
	}
	out.push(n)
	return Buffer.from(out)
}

function readVarint (bytes, at) {
	let n = 0
	let shift = 0
	for (;;) {
		if (at >= bytes.length || shift > 28) return null
		const b = bytes[at++]
		n |= (b & 0x7f) << shift
		if (!(b & 0x80)) return { n, at }
		shift += 7
	}
}

// PeerID of an RSA public key: the sha2-256 multihash of its protobuf
// encoding (too long for an identity multihash), "Qm...".
function peerIdOfRsaSpki (spki) {
	const proto = Buffer.concat([Buffer.from([0x08, 0x00, 0x12]), varint(spki.length), spki])
	const digest = crypto.createHash('sha256').update(proto).digest()
	return base58(Buffer.concat([Buffer.from([0x12, 0x20]), digest]))
}

function generateRsa () {
	const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 })
	const der = privateKey.export({ type: 'pkcs1', format: 'der' })
	const spki = publicKey.export({ type: 'spki', format: 'der' })
	return { bytes: Buffer.concat([Buffer.from([0x08, 0x00, 0x12]), varint(der.length), der]), peerId: peerIdOfRsaSpki(spki) }
}

function generate () {
	if ((process.env.OTELA_FAKE_KEY ?? 'rsa').toLowerCase() !== 'ed25519') return generateRsa()
	const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519')
	const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d, 'base64url')
	const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url')
	return { bytes: Buffer.concat([PRIVATE_PREFIX, seed, pub]), peerId: peerIdOfPublic(pub) }
}

function readKeyFile (configDir) {
	const file = keyPath(configDir)
	try {
		return fs.readFileSync(file)
	} catch (err) {
		if (err.code === 'ENOENT') {
			throw new IdentityError(`no identity in ${configDir}: run "otela init --config-dir ${configDir}" first`)
		}
		throw new IdentityError(`cannot read ${file}: ${err.message}`)
	}
}

function notAKey (configDir, why) {
	return new IdentityError(`${keyPath(configDir)} is not a libp2p private key (${why}): remove it and run "otela init" again`)
}

// The PeerID of a stored key (checked: an Ed25519 key's public half
// against its seed; an RSA key must be a PKCS#1 key).
function peerIdOfKey (configDir, bytes) {
	if (bytes[0] === 0x08 && bytes[1] === 0x00 && bytes[2] === 0x12) {
		const len = readVarint(bytes, 3)
		if (len === null || len.at + len.n !== bytes.length) throw notAKey(configDir, 'bad RSA key length')
		try {
			const key = crypto.createPrivateKey({ key: bytes.subarray(len.at), format: 'der', type: 'pkcs1' })
			return peerIdOfRsaSpki(crypto.createPublicKey(key).export({ type: 'spki', format: 'der' }))
		} catch (err) {
			throw notAKey(configDir, err.message)
		}
	}
	return peerIdOfPublic(publicOf(configDir, bytes))
}

// The public half of a stored Ed25519 key, checked against its seed.
function publicOf (configDir, bytes) {
	if (bytes.length !== 68 || !bytes.subarray(0, 4).equals(PRIVATE_PREFIX)) {
		throw notAKey(configDir, 'not an Ed25519 key of 64 bytes')
	}
	const seed = bytes.subarray(4, 36)
	const pub = bytes.subarray(36, 68)
	const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed])
	const derived = crypto.createPublicKey(crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }))
		.export({ format: 'jwk' }).x
	if (Buffer.from(derived, 'base64url').compare(pub) !== 0) throw notAKey(configDir, 'public key does not match its seed')
	return pub
}

// Creates configDir and its key unless the key already exists; returns
// { created, peerId }.
export function initIdentity (configDir) {
	fs.mkdirSync(configDir, { recursive: true, mode: 0o700 })
	const file = keyPath(configDir)
	fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 })
	if (fs.existsSync(file)) return { created: false, peerId: peerIdOf(configDir) }
	const key = generate()
	const tmp = `${file}.${process.pid}.tmp`
	fs.writeFileSync(tmp, key.bytes, { mode: 0o600 })
	fs.chmodSync(tmp, 0o600)
	fs.renameSync(tmp, file)
	return { created: true, peerId: key.peerId }
}

export function peerIdOf (configDir) {
	return peerIdOfKey(configDir, readKeyFile(configDir))
}

// The key as libp2p's PrivateKey, for start.
export async function loadPrivateKey (configDir) {
	const bytes = readKeyFile(configDir)
	peerIdOfKey(configDir, bytes)
	const { privateKeyFromProtobuf } = await import('@libp2p/crypto/keys')
	try {
		return privateKeyFromProtobuf(new Uint8Array(bytes))
	} catch (err) {
		throw notAKey(configDir, err.message)
	}
}
