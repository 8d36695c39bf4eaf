"""``rewardlab sandbox build-image|status``: the local Docker sandbox image."""

from __future__ import annotations

import argparse

HELP = "Build the Docker sandbox image from Debian packages (no registry pull), or show its status."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = actions.add_parser("build-image", help="build the sandbox image (cached: a second call only checks)")
    build.add_argument("--tag", default=None, help="image tag (default: rewardlab/sandbox:<recipe hash>)")
    build.add_argument("--from", dest="from_image", default=None, help="start from this (pulled) image instead")
    build.add_argument("--mirror", default=None, help="Debian mirror URL for mmdebstrap")
    build.add_argument("--force", action="store_true", help="rebuild even when the tag exists")
    actions.add_parser("status", help="say whether an engine answers and the default image exists")


def run(args: argparse.Namespace) -> int:
    from rewardlab.sandbox.image import SandboxError, build_image, default_image, docker_client, image_exists

    try:
        if args.action == "status":
            client = docker_client(timeout=5)
            tag = default_image()
            present = image_exists(client, tag)
            print(
                f"engine: answers; image {tag}: {'present' if present else 'missing (rewardlab sandbox build-image)'}"
            )
            return 0 if present else 1
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
