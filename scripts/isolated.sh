#!/usr/bin/env bash
# bash scripts/isolated.sh COMMAND [ARG...]: runs COMMAND in the repository with everything beside
# the repository in its parent directory hidden, so a test that reads outside the repository (a
# sibling checkout, shared reference material) fails here instead of passing on one machine only.
#
# In a private mount namespace (unshare, needs root or CAP_SYS_ADMIN) each directory beside the
# repository, dot-entries included, is covered by an empty read-only tmpfs and each file by
# /dev/null. What the repository itself links to from there at its top level (a git worktree's
# node_modules and .tooling, linked from the main checkout) stays visible: it is the repository's
# own install, not material beside it.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

if [ "${DGGS_ISOLATED_NS:-}" != "$repo" ]; then
  if [ $# -eq 0 ]; then
    echo "usage: bash scripts/isolated.sh COMMAND [ARG...]" >&2
    exit 2
  fi
  if ! command -v unshare >/dev/null; then
    echo "isolated.sh: unshare (util-linux) is not installed; it is needed to hide what lies beside the repository" >&2
    exit 1
  fi
  # Probe first, so a refusal (no root, a container without CAP_SYS_ADMIN) is said as such
  # rather than as COMMAND's failure.
  if ! err=$(unshare -m --propagation private true 2>&1); then
    echo "isolated.sh: cannot make a private mount namespace (unshare -m): ${err}; run as root or with CAP_SYS_ADMIN" >&2
    exit 1
  fi
  DGGS_ISOLATED_NS="$repo" exec unshare -m --propagation private bash "$repo/scripts/isolated.sh" "$@"
fi

# From here on: inside the private namespace; mounts made here vanish with it.
parent=$(dirname "$repo")
[ "$parent" = "$repo" ] && { echo "isolated.sh: the repository is the file system root; nothing to hide" >&2; exit 1; }
# Where kept targets wait while their places are covered. mktemp may put it beside the repository
# (a checkout in /tmp): it is then passed over below, never covered, so it can be removed.
stash=$(mktemp -d)

# The repository's top-level links whose targets lie beside it: keep their targets reachable.
keep=()
for link in "$repo"/* "$repo"/.[!.]* "$repo"/..?*; do
  [ -L "$link" ] || continue
  target=$(readlink -f "$link") || continue
  case "$target" in "$parent"/*) ;; *) continue ;; esac
  case "$target" in "$repo" | "$repo"/*) continue ;; esac
  [ -e "$target" ] || continue
  n=${#keep[@]}
  if [ -d "$target" ]; then mkdir "$stash/$n"; else touch "$stash/$n"; fi
  mount --bind "$target" "$stash/$n"
  keep+=("$target")
done

hidden=0
for entry in "$parent"/* "$parent"/.[!.]* "$parent"/..?*; do
  [ -e "$entry" ] || [ -L "$entry" ] || continue
  [ "$entry" = "$repo" ] || [ "$entry" = "$stash" ] && continue
  if [ -L "$entry" ]; then
    continue # a link beside the repository leads into something hidden here, or outside the parent
  elif [ -d "$entry" ]; then
    mount -t tmpfs -o size=1m,mode=0755 none "$entry"
  else
    mount --bind /dev/null "$entry"
  fi
  hidden=$((hidden + 1))
done

for i in "${!keep[@]}"; do
  target=${keep[$i]}
  if [ -d "$stash/$i" ]; then mkdir -p "$target"; else mkdir -p "$(dirname "$target")" && touch "$target"; fi
  mount --bind "$stash/$i" "$target"
  umount "$stash/$i"
done
rm -rf "$stash"

# Read-only once the kept targets have their mount points: a test that writes beside the
# repository fails too, instead of writing into the tmpfs.
for entry in "$parent"/* "$parent"/.[!.]* "$parent"/..?*; do
  [ "$entry" = "$repo" ] || [ "$entry" = "$stash" ] && continue
  if [ -d "$entry" ] && [ ! -L "$entry" ] && mountpoint -q "$entry"; then mount -o remount,ro,bind "$entry"; fi
done

echo "isolated.sh: ${hidden} entries beside the repository hidden${keep:+, kept what it links to: ${keep[*]}}" >&2
cd "$repo"
unset DGGS_ISOLATED_NS
exec "$@"
