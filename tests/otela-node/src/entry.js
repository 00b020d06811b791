// The program: the polyfill first, then the command dispatcher (libp2p must
// only be imported after the polyfill). bin/otela runs it from its sources,
// or from the one-file bundle install.sh makes of it (node_modules/
// .otela-bundle.mjs), which Node loads several times faster than the
// hundreds of modules it is made of.
import './polyfill.js'

const { main } = await import('./cli.js')
process.exitCode = await main(process.argv.slice(2))
