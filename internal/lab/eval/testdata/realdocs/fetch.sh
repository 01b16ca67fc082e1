#!/usr/bin/env bash
# fetch.sh DEST: puts the documents of questions.jsonl into DEST/qa, one
# folder per collection (DEST/qa/COLLECTION/...), from the public repositories
# and commits listed in sources.tsv, checking each PDF's sha256. The
# documents are not in this repository: their licences are in sources.tsv.
#
# A repository is read from $REALDOCS_GIT/OWNER+NAME (a bare or normal git
# clone holding the commit) when that exists, else cloned from GitHub
# (blobless) into a temporary folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="${1:?usage: fetch.sh DEST}/qa"
mkdir -p "$dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

gitdir() { # OWNER/NAME -> a git dir holding it
	local repo="$1" local="${REALDOCS_GIT:-}/${1/\//+}"
	if [ -n "${REALDOCS_GIT:-}" ] && [ -d "$local" ]; then
		if [ -d "$local/repo" ]; then echo "$local/repo"; else echo "$local"; fi
		return
	fi
	local d="$tmp/${repo/\//+}"
	if [ ! -d "$d" ]; then
		git clone -q --bare --filter=blob:none "https://github.com/$repo" "$d" >&2
	fi
	echo "$d"
}

grep -v '^#' "$here/sources.tsv" | while IFS=$'\t' read -r coll repo commit path sum _licence; do
	[ -n "$coll" ] || continue
	g="$(gitdir "$repo")"
	mkdir -p "$dest/$coll"
	if [ "$sum" = "-" ]; then
		# A folder: its Markdown pages only.
		git --git-dir="$g" archive "$commit" "$path" | tar -x -C "$tmp"
		(cd "$tmp/$path" && find . -type f \( -name '*.md' -o -name '*.mdx' \) ! -path './tools/*' -print0 |
			xargs -0 -I{} install -D -m 0644 {} "$dest/$coll/{}")
	else
		out="$dest/$coll/$(basename "$path")"
		git --git-dir="$g" show "$commit:$path" >"$out"
		got="$(sha256sum "$out" | cut -c1-64)"
		if [ "$got" != "$sum" ]; then
			echo "fetch.sh: $out: sha256 $got, want $sum" >&2
			exit 1
		fi
	fi
	echo "fetch.sh: $coll <- $repo@${commit:0:12}:$path" >&2
done
