#!/bin/sh
# Builds benches/ns3/dumbbell.cc against Debian's ns-3.37 (apt-get install libns3-dev) into
# ${CARGO_TARGET_DIR:-target}/ns3/dumbbell, outside the source tree. ns-3 is a peer that the
# benches measure vho against (benches/ns3_side_by_side.py), never a part of vho.
#
#   sh benches/ns3/build.sh
#
# Debian's ns3-*.pc files carry a stray "-I/usr;" in Cflags, so the include path is given
# here, and their Libs name /usr/lib/.../libgsl.so of libgsl-dev, which the shared ns-3
# libraries already link: only the -l and -L words of pkg-config's answer are kept.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${CARGO_TARGET_DIR:-$root/target}/ns3
mods="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control"
if ! pkg-config --exists $mods; then
    echo "ns-3 not found: apt-get install libns3-dev" >&2
    exit 2
fi
mkdir -p "$out"
libs=$(for w in $(pkg-config --libs $mods); do case $w in -l* | -L*) echo "$w" ;; esac; done | sort -u)
# shellcheck disable=SC2086
nice g++ -std=c++17 -O2 -o "$out/dumbbell" "$root/benches/ns3/dumbbell.cc" -I/usr/include $libs
echo "$out/dumbbell"
