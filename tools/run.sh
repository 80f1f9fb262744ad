#!/usr/bin/env bash
# `make run`: the console (Streamlit, port $PORT) and the student service (uvicorn, port $SERVICE_PORT) on the
# embedded default (shipped corpus, SQLite under data/, offline answerer). Ctrl-C stops both; if either one stops on
# its own, the other is stopped too, so the pair never runs half.
set -u
PY=${PY:-.venv/bin/python}
PORT=${PORT:-8501}
SERVICE_PORT=${SERVICE_PORT:-8502}
"$PY" -m core serve --host 127.0.0.1 --port "$SERVICE_PORT" &
service=$!
"$PY" -m streamlit run streamlit_app.py --server.address 127.0.0.1 --server.port "$PORT" \
  --browser.gatherUsageStats false --server.headless true &
console=$!
stop() {
  trap - INT TERM EXIT
  kill "$service" "$console" 2>/dev/null
  wait "$service" "$console" 2>/dev/null
}
trap 'stop; exit 130' INT TERM
trap stop EXIT
echo "控制台 http://127.0.0.1:$PORT ；学员服务 http://127.0.0.1:$SERVICE_PORT （接口文档 /docs）。按 Ctrl-C 同时停止两者。"
wait -n "$service" "$console"
