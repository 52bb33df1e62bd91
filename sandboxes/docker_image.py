"""The Docker backend's image, built offline and cached by content.

No image registry is needed: the base is a Debian root filesystem that `debootstrap` makes
from the Debian mirror that apt uses (`--variant=minbase --include=python3`), loaded with
`docker import`; pytest (`IMAGE_PYTEST`: the pins of the scorer's harness, for agents'
commands) comes from wheels that `pip download` fetches on the host and copies into the
build context of `sandboxes/image/Dockerfile`. The build itself runs without network.

Everything is keyed by content, so a rebuild happens only when an input changes:

- the root filesystem tarball, by suite, mirror and package list, in the `docker` cache
  (`swarm_envs.cache`);
- the wheels, by their pinned requirements;
- the image tag `swarm-envs-sandbox:<key>`, by all of the above and the Dockerfile.

`ensure_image(client)` returns the tag, building what is missing; making the root
filesystem needs root and debootstrap (`apt-get install debootstrap`). From a shell:

    python -m swarm_envs.sandboxes.docker_image build   # prints the tag
    python -m swarm_envs.sandboxes.docker_image tag     # the tag the inputs give
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import importlib.metadata
import json
import logging
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from swarm_envs import cache
from swarm_envs.error import BackendUnavailable

logger = logging.getLogger("swarm_envs.sandboxes")

IMAGE_DIR = pathlib.Path(__file__).resolve().parent / "image"
IMAGE_REPO = "swarm-envs-sandbox"
BASE_REPO = "swarm-envs-sandbox-base"
#: Debian packages of the root filesystem, besides the minimal base
PACKAGES = ("python3",)
_FALLBACK = "or use the local sandbox: make_sandbox('local')"
_UNUSED = (
    "var/cache/apt",
    "var/lib/apt/lists",
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "var/log",
)
_lock = threading.Lock()


def cache_dir() -> pathlib.Path:
    """Where root filesystems and wheels are kept between runs."""
    return cache.folder("docker")


@dataclasses.dataclass(frozen=True)
class Recipe:
    """The inputs of the image; each part's key changes exactly when the part would.

    Attributes:
        suite: the Debian (or Ubuntu) release to bootstrap, e.g. `bookworm`.
        mirror: the archive to bootstrap from, e.g. `http://deb.debian.org/debian`.
        requirements: pinned requirements of the wheels (`IMAGE_PYTEST` and pip).
    """

    suite: str
    mirror: str
    requirements: tuple[str, ...]

    @property
    def rootfs_key(self) -> str:
        return _key({"suite": self.suite, "mirror": self.mirror, "packages": PACKAGES})

    @property
    def wheels_key(self) -> str:
        return _key({"requirements": self.requirements})

    @property
    def tag(self) -> str:
        files = {
            p.relative_to(IMAGE_DIR).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(IMAGE_DIR.rglob("*"))
            if p.is_file()
        }
        key = _key({"rootfs": self.rootfs_key, "wheels": self.wheels_key, "files": files})
        return f"{IMAGE_REPO}:{key}"


def _key(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def host_recipe() -> Recipe:
    """The recipe this host gives: its release and apt mirror, and the image's pinned wheels.

    Raises:
        BackendUnavailable: the host has no apt mirror or release name to start from.
    """
    suite, mirror = _apt_source()
    return Recipe(suite=suite, mirror=mirror, requirements=_pinned_requirements())


def _apt_source() -> tuple[str, str]:
    """(suite, mirror) of the host's first main apt source (deb822 or one-line format)."""
    suite = os.environ.get("SWARM_ENVS_DEBIAN_SUITE", "")
    mirror = os.environ.get("SWARM_ENVS_DEBIAN_MIRROR", "")
    if not suite:
        with contextlib.suppress(OSError):
            for line in pathlib.Path("/etc/os-release").read_text().splitlines():
                if line.startswith("VERSION_CODENAME="):
                    suite = line.split("=", 1)[1].strip().strip('"')
    if not mirror:
        sources = [pathlib.Path("/etc/apt/sources.list")]
        with contextlib.suppress(OSError):
            sources += sorted(pathlib.Path("/etc/apt/sources.list.d").iterdir())
        for src in sources:
            with contextlib.suppress(OSError):
                mirror = _main_mirror(src.name, src.read_text(), suite)
            if mirror:
                break
    if not suite or not mirror:
        raise BackendUnavailable(
            "cannot tell which Debian release and mirror to build the Docker sandbox image "
            f"from (found suite={suite!r}, mirror={mirror!r}); set SWARM_ENVS_DEBIAN_SUITE "
            f"and SWARM_ENVS_DEBIAN_MIRROR, {_FALLBACK}"
        )
    return suite, mirror.rstrip("/")


def _main_mirror(name: str, text: str, suite: str) -> str:
    if name.endswith(".sources"):
        for stanza in re.split(r"\n\s*\n", text):
            fields = dict(
                (k.strip().lower(), v.strip())
                for k, _, v in (ln.partition(":") for ln in stanza.splitlines())
                if v and not k.startswith("#")
            )
            if (
                "deb" in fields.get("types", "").split()
                and suite in fields.get("suites", "").split()
            ):
                return fields.get("uris", "").split()[0] if fields.get("uris") else ""
    elif name.endswith(".list"):
        for line in text.splitlines():
            parts = line.split("#", 1)[0].split()
            if len(parts) >= 3 and parts[0] == "deb":
                uri_at = 2 if parts[1].startswith("[") else 1
                if len(parts) > uri_at + 1 and parts[uri_at + 1] == suite:
                    return parts[uri_at]
    return ""


#: pytest and what it imports, for agents' commands in the container (`python -m pytest`):
#: the pins of the scorer's own harness (`swarm_envs.scoring.harness_env.LOCK`, a test
#: checks that they agree), whatever the host has. The scoring worker does not use them:
#: it is shown the scorer's private pytest, checked against its wheels.
IMAGE_PYTEST = (
    "iniconfig==2.3.1",
    "packaging==26.4",
    "pluggy==1.7.0",
    "pygments==2.21.0",
    "pytest==9.2.0",
)


def _pinned_requirements() -> tuple[str, ...]:
    """The pinned wheels of the image: `IMAGE_PYTEST`, and pip (the host's) to install them."""
    return tuple(sorted((*IMAGE_PYTEST, f"pip=={importlib.metadata.version('pip')}")))


# ------------------------------------------------------------------------- building


def rootfs(recipe: Recipe) -> pathlib.Path:
    """The root filesystem tarball of `recipe`, made with debootstrap unless cached.

    Raises:
        BackendUnavailable: it is not cached and cannot be made here (not root, no
            debootstrap, the mirror unreachable).
    """
    out = cache_dir() / "rootfs" / f"{recipe.suite}-{recipe.rootfs_key}.tar"
    if out.is_file():
        return out
    if os.geteuid() != 0 or not shutil.which("debootstrap"):
        raise BackendUnavailable(
            "building the Docker sandbox image needs a Debian root filesystem, made by "
            "debootstrap as root (apt-get install debootstrap, then run `python -m "
            f"swarm_envs.sandboxes.docker_image build` as root); {_FALLBACK}"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        target = pathlib.Path(tmp) / "root"
        argv = ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}"]
        argv += [recipe.suite, str(target), recipe.mirror]
        logger.info("debootstrap %s from %s (a few minutes, once)", recipe.suite, recipe.mirror)
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            raise BackendUnavailable(
                f"debootstrap {recipe.suite} from {recipe.mirror} failed: "
                f"{(r.stdout + r.stderr)[-800:]}; {_FALLBACK}"
            )
        # What an offline, read-only image never uses.
        for rel in _UNUSED:
            shutil.rmtree(target / rel, ignore_errors=True)
        # In this build's own folder: two builders of the same recipe sharing the cache
        # (test workers, a command beside them) each rename a whole tarball into place.
        partial = pathlib.Path(tmp) / "rootfs.tar"
        tar = ["tar", "--numeric-owner", "-C", str(target), "-cf", str(partial)]
        tar += ["--exclude=./dev/*", "--exclude=./proc/*", "--exclude=./sys/*", "."]
        subprocess.run(tar, check=True)
        os.replace(partial, out)
    logger.info("root filesystem %s made in %.0f s", out.name, time.monotonic() - start)
    return out


def wheels(recipe: Recipe) -> pathlib.Path:
    """A folder with the wheels of `recipe.requirements` (pip's own as `pip.whl`).

    Raises:
        BackendUnavailable: they are not cached and `pip download` fails (no index).
    """
    out = cache_dir() / "wheels" / recipe.wheels_key
    if (out / "pip.whl").is_file():
        return out
    partial = out.parent / f".{out.name}.{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        argv = [sys.executable, "-m", "pip", "download", "-q", "--no-deps"]
        argv += ["--only-binary=:all:", "-d", str(partial), *recipe.requirements]
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            raise BackendUnavailable(
                f"pip download {' '.join(recipe.requirements)} failed: {r.stderr[-800:]}; "
                f"{_FALLBACK}"
            )
        for pip in partial.glob("pip-*.whl"):
            pip.rename(partial / "pip.whl")
        with contextlib.suppress(OSError):  # another process was quicker: keep its copy
            os.rename(partial, out)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return out


def ensure_image(client: Any, recipe: Recipe | None = None) -> str:
    """The sandbox image's tag, built (offline, from cached parts) unless the engine has it.

    Raises:
        BackendUnavailable: the image is missing and cannot be built here.
    """
    import docker

    recipe = recipe or host_recipe()
    tag = recipe.tag
    with _lock:
        try:
            client.images.get(tag)
            return tag
        except docker.errors.ImageNotFound:
            pass
        start = time.monotonic()
        base = f"{BASE_REPO}:{recipe.rootfs_key}"
        try:
            client.images.get(base)
        except docker.errors.ImageNotFound:
            repo, _, key = base.partition(":")
            client.api.import_image_from_file(str(rootfs(recipe)), repository=repo, tag=key)
        with tempfile.TemporaryDirectory() as ctx:
            shutil.copytree(IMAGE_DIR, ctx, dirs_exist_ok=True)
            shutil.copytree(wheels(recipe), pathlib.Path(ctx) / "wheels")
            try:
                client.images.build(
                    path=ctx,
                    tag=tag,
                    buildargs={"BASE": base},
                    network_mode="none",
                    pull=False,
                    rm=True,
                    forcerm=True,
                )
            except docker.errors.BuildError as e:
                log = "".join(str(c.get("stream", c.get("error", ""))) for c in e.build_log)
                raise BackendUnavailable(
                    f"building the sandbox image {tag} failed: {log[-800:]}; {_FALLBACK}"
                ) from None
        logger.info("sandbox image %s built in %.1f s", tag, time.monotonic() - start)
    return tag


def main(argv: list[str] | None = None) -> int:
    """Command line: build the image, or print its tag."""
    parser = argparse.ArgumentParser(
        prog="python -m swarm_envs.sandboxes.docker_image",
        description="Build the Docker sandbox image offline (debootstrap, docker import, "
        "wheels from pip download), cached by content.",
    )
    parser.add_argument("action", choices=("build", "tag"), help="build it, or print its tag")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        recipe = host_recipe()
        if args.action == "tag":
            print(recipe.tag)
            return 0
        import docker

        print(ensure_image(docker.from_env(timeout=600), recipe))
    except BackendUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
