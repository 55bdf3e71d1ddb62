#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs taken from the repository (fixture sources,
# operator files, package manifests) and a few hand-written hostile cases. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=fuzz/corpus
mkdir -p "$corpus"/{anchor_source,model_reply,edit_hunks,operator_file,launch_config,schema_args}

# anchor_source: the first byte picks the grammar (0 JavaScript, 1 TypeScript, 2 TSX).
while IFS= read -r f; do
  [ "$(wc -c <"$f")" -le 16384 ] || continue
  case "$f" in *.ts) lang='\x01' ;; *) lang='\x00' ;; esac
  { printf "$lang"; cat "$f"; } >"$corpus/anchor_source/$(echo "$f" | tr / _)"
done < <(find fixtures servers-npm -path '*/node_modules' -prune -o -type f \
           \( -name '*.js' -o -name '*.ts' -o -name '*.mjs' -o -name '*.cjs' \) -print)
# Unterminated literals ending in a multi-byte character (crates/anchor/src/syntax.rs tests).
printf '\x00server.tool("\xc3\xa9\n, {}, async () => {});' >"$corpus/anchor_source/unterminated-e-acute"
printf '\x01const ToolName = { ECHO: "ech\xe2\x82\xac\n};' >"$corpus/anchor_source/unterminated-euro"

# model_reply
printf 'src/index.js\n```js\n<<<<<<< SEARCH\n  a: 1,\n=======\n  a: 2,\n>>>>>>> REPLACE\n```\n' \
  >"$corpus/model_reply/block"
printf '```json\n{"operator": "O5", "targets": ["echo"], "rationale": "r"}\n```\n' >"$corpus/model_reply/selection"
printf '[{"tool": "echo", "arguments": {"m": "hi"}, "expect": "success", "contains": "hi"}]' \
  >"$corpus/model_reply/tests"

# operator_file, launch_config (first byte even: server.toml, odd: package.json)
for f in operators/*.md; do cp "$f" "$corpus/operator_file/$(basename "$f")"; done
while IFS= read -r f; do
  { printf '\x01'; cat "$f"; } >"$corpus/launch_config/$(echo "$f" | tr / _)"
done < <(find fixtures -maxdepth 2 -name package.json)
printf '\x00command = "node"\nargs = ["dist/index.js", "{tmp}"]\n[env]\nMEMORY_FILE_PATH = "{tmp}/m.json"\n' \
  >"$corpus/launch_config/server-toml"

# schema_args
printf '{"type":"object","properties":{"city":{"type":"string","minLength":3},"days":{"type":"integer","minimum":3},"tags":{"type":"array","items":{"type":"string"},"minItems":2},"when":{"anyOf":[{"type":"null"},{"type":"string","format":"date"}]}},"required":["city","days","tags","when"]}' \
  >"$corpus/schema_args/weather"
printf '{"type":"array","minItems":1000000000,"items":{"type":"string","minLength":1000000000}}' \
  >"$corpus/schema_args/huge"

# edit_hunks takes structured (arbitrary) input: it starts from an empty corpus.
echo "seeded: $(find "$corpus" -type f | wc -l) files under $corpus"
