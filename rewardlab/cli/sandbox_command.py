"""``rewardlab sandbox build-image|build-root|status|gc``: the sandbox image and root, and the reaper."""

from __future__ import annotations

import argparse

HELP = (
    "Build the Docker sandbox image or the local sandbox's minimal root from Debian packages (no registry pull), "
    "or show their status."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = actions.add_parser("build-image", help="build the sandbox image (cached: a second call only checks)")
    build.add_argument("--tag", default=None, help="image tag (default: rewardlab/sandbox:<recipe hash>)")
    build.add_argument("--from", dest="from_image", default=None, help="start from this (pulled) image instead")
    build.add_argument("--mirror", default=None, help="Debian mirror URL for mmdebstrap")
    build.add_argument("--force", action="store_true", help="rebuild even when the tag exists")
    root = actions.add_parser("build-root", help="build the local sandbox's root file system (cached)")
    root.add_argument("--mirror", default=None, help="Debian mirror URL for mmdebstrap")
    root.add_argument("--force", action="store_true", help="rebuild even when it exists")
    actions.add_parser("status", help="say whether an engine answers, the default image exists and the root is built")
    gc = actions.add_parser(
        "gc", help="remove sandbox containers, temporary directories and lease files whose owner process is gone"
    )
    gc.add_argument("--no-docker", action="store_true", help="leave containers alone (temporary directories only)")


def run(args: argparse.Namespace) -> int:
    from rewardlab.sandbox.image import SandboxError, build_image, default_image, docker_client, image_exists
    from rewardlab.sandbox.rootfs import build_root, built_root, default_root_dir

    if args.action == "gc":
        from rewardlab.reaper import reap

        report = reap(docker=not args.no_docker)
        print(report.summary())
        for line in [*report.containers, *report.temp_dirs, *report.lease_files]:
            print(f"  removed {line}")
        for error in report.errors:
            print(f"  could not reap: {error}")
        return 0
    try:
        if args.action == "status":
            root = built_root()
            missing = f"missing at {default_root_dir()} (rewardlab sandbox build-root)"
            print(f"root: {root if root is not None else missing}")
            client = docker_client(timeout=5)
            tag = default_image()
            present = image_exists(client, tag)
            print(
                f"engine: answers; image {tag}: {'present' if present else 'missing (rewardlab sandbox build-image)'}"
            )
            return 0 if present and root is not None else 1
        if args.action == "build-root":
            built = build_root(force=args.force, mirror=args.mirror)
            print(f"built {built.path} in {built.seconds:.1f} s" if built.built else f"{built.path} is already built")
            return 0
        result = build_image(args.tag, from_image=args.from_image, force=args.force, mirror=args.mirror)
    except SandboxError as exc:
        print(f"error: {exc}")
        return 1
    if result.built:
        print(
            f"built {result.tag}: root file system {result.rootfs_seconds:.1f} s, "
            f"import {result.import_seconds:.1f} s, {result.size_bytes / 2**20:.0f} MiB"
        )
    else:
        print(f"{result.tag} is already built ({result.size_bytes / 2**20:.0f} MiB); --force rebuilds it")
    return 0
