#!/usr/bin/env bash
# Set up and run every test: the documentation site (mkdocs build --strict),
# the API docs (cargo doc, warnings as errors), Rust (cargo test, optimised:
# the validation tests are heavy) and Python (pytest, including the tshark
# capture check).
set -euo pipefail
cd "$(dirname "$0")/.."

# tshark validates captures; install it when we can (root, apt), carry on
# without it otherwise (the capture test then skips). The emulator's tests
# run kernel transfers with iperf3 in namespaces made with ip (iproute2) and
# check the refusal without CAP_NET_ADMIN with capsh (libcap2-bin); the
# coalesced-writes check captures inside a namespace with tcpdump.
if { ! command -v iperf3 || ! command -v ip || ! command -v capsh || ! command -v tcpdump; } >/dev/null 2>&1 &&
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing iperf3, iproute2, libcap2-bin, tcpdump"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 iproute2 libcap2-bin tcpdump >/dev/null) ||
        echo "warning: could not install iperf3/iproute2/capsh/tcpdump; the emulator's tests will fail" >&2
fi
if ! command -v tshark >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "==> installing tshark"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null) ||
            echo "warning: could not install tshark; capture checks will be skipped" >&2
    else
        echo "warning: tshark not found; capture checks will be skipped" >&2
    fi
fi

# One cargo profile for the extension and the Rust tests, so both share the
# compiled crates (Cargo.toml: [profile.ci]).
AIRTCP_CARGO_PROFILE=ci AIRTCP_EXTRAS=test,docs source scripts/setup.sh

echo "==> mkdocs build --strict (a dead link or anchor in docs/ fails here)"
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict  # not --quiet: it hides the warnings strict counts

echo "==> cargo doc (a rustdoc warning in any crate fails here: a broken intra-doc link, or an undocumented public item in core, tcp, coding, wifi or agents, which deny missing_docs)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet --workspace

echo "==> cargo test"
# airtcp-py is a Python extension module (tested from Python below).
cargo test --workspace --profile ci --exclude airtcp-py

echo "==> pytest"
python -m pytest -q tests/python
