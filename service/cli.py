"""`xiaoe serve`: the student service on uvicorn. Registered into core's command line through the `xiaoe.commands`
entry point (pyproject.toml), so core never imports a web framework."""

from __future__ import annotations

import argparse

from core.settings import SERVICE_PORT, Settings


def register(subparsers) -> None:
    serve = subparsers.add_parser("serve", help="启动学员服务（学校的应用调用的网络接口）")
    serve.add_argument("--host", default="127.0.0.1", help="监听地址（默认 127.0.0.1；对外请放在反向代理后面）")
    serve.add_argument("--port", type=int, default=SERVICE_PORT, help=f"端口（默认 {SERVICE_PORT}）")
    serve.add_argument("--workers", type=int, default=1,
                       help="工作进程数（默认 1；多核机器上可设为核数，进程之间只共用数据库，和多台实例一样）")
    serve.set_defaults(handler=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service.app import create_app

    if not 1 <= args.port <= 65535:
        print(f"错误：端口 --port（{args.port}）必须在 1 到 65535 之间。")
        return 2
    if not 1 <= args.workers <= 64:
        print(f"错误：工作进程数 --workers（{args.workers}）必须在 1 到 64 之间。")
        return 2
    settings = Settings.load()  # a bad setting is named here, before any worker starts
    if settings.wecom_on:
        from core.stores.db import open_database
        from service.wecom.worker import not_ready

        problem = not_ready(settings, open_database(settings.db_url))
        if problem:
            print(f"错误：{problem}")
            return 2
    print(f"小E 学员服务：http://{args.host}:{args.port}（接口文档 /docs，健康检查 /v1/health）；按 Ctrl-C 停止。",
          flush=True)
    options = {"host": args.host, "port": args.port, "log_level": "warning", "access_log": False,
               "timeout_graceful_shutdown": 10}
    if args.workers == 1:
        uvicorn.run(create_app(settings), **options)
    else:  # each worker process builds its own app from the same environment
        uvicorn.run("service.app:create_app", factory=True, workers=args.workers, **options)
    return 0
