"""``rewardlab serve``: serve envs over OpenEnv's WebSocket protocol (see :mod:`rewardlab.serve`); with
``--ray``, as a Ray Serve deployment of ``--replicas`` replicas (:mod:`rewardlab.serve.ray_serve`)."""

from __future__ import annotations

import argparse
import contextlib

from rewardlab.cli.env_arguments import served_env_id

HELP = "Serve envs over OpenEnv's WebSocket protocol (/ws, /health, /schema, /metadata), one env per session."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "env_ids", nargs="*", metavar="ENV_ID", type=served_env_id, help="env ids to serve (default: every env)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback; others need --token)")
    parser.add_argument("--port", type=int, default=8000, help="port (0: any free port, printed at start)")
    parser.add_argument("--max-sessions", type=int, default=256, help="open sessions at most (default 256)")
    parser.add_argument(
        "--idle-timeout", type=float, default=600.0, help="seconds without a message before a session is closed"
    )
    parser.add_argument("--token", default=None, help="required on every connection (Authorization: Bearer T)")
    parser.add_argument(
        "--max-frame-bytes", type=int, default=1 << 20, help="largest client message read (default 1 MiB)"
    )
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=None,
        help="seconds the containers and directories this server makes outlive it when it hangs without dying "
        "(renewed while it runs; default: they go when the process does)",
    )
    parser.add_argument(
        "--ray", action="store_true", help="run as a Ray Serve deployment (sessions per replica: --max-sessions)"
    )
    parser.add_argument("--replicas", type=int, default=None, help="with --ray: replicas to run (default 1)")
    parser.add_argument(
        "--ray-address",
        default=None,
        help="with --ray: the cluster to join ('auto': this node's; default: RAY_ADDRESS or a new local instance)",
    )


def run(args: argparse.Namespace) -> int:
    import rewardlab
    from rewardlab.serve import ServeConfig, serve

    if not args.ray and (args.replicas is not None or args.ray_address is not None):
        print("--replicas and --ray-address need --ray")
        return 2
    env_ids = tuple(args.env_ids) or tuple(rewardlab.env_ids())
    if args.lease_ttl is not None and not args.lease_ttl > 0:
        print("--lease-ttl must be positive seconds")
        return 2
    from rewardlab.leases import hold_lease
    from rewardlab.reaper import reap_soon

    if args.lease_ttl is not None:
        hold_lease(args.lease_ttl)
    reap_soon()  # what servers and trainers that died before this one left behind
    config = ServeConfig(
        env_ids,
        max_sessions=args.max_sessions,
        idle_timeout=args.idle_timeout,
        token=args.token,
        max_frame_bytes=args.max_frame_bytes,
    )
    if args.ray:
        from rewardlab.serve import ray_serve

        replicas = 1 if args.replicas is None else args.replicas
        print(
            f"serving {', '.join(env_ids)} on ws://{args.host}:{args.port}/ws with Ray Serve: "
            f"{replicas} replicas x {args.max_sessions} sessions",
            flush=True,
        )
        ray_serve.run(config, host=args.host, port=args.port, num_replicas=replicas, address=args.ray_address)
        ray_serve.end_process_within()  # Ray's exit handlers can hold a process that is done for ever
        return 0
    where = "any free port (uvicorn names it below)" if args.port == 0 else f"ws://{args.host}:{args.port}/ws"
    print(f"serving {', '.join(env_ids)} on {where}; Ctrl-C stops", flush=True)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn shuts down cleanly, then re-raises the signal it caught
        serve(config, host=args.host, port=args.port, log_level="info")
    return 0
