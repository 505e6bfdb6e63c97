#!/usr/bin/env bash
# fleet-ranks.sh — a job of many ranks made from one trace, for benchmarks: N plain-JSON copies
# of TRACE (plain or .gz) in DIR, rank0.json … rank<N−1>.json, each with the "rank" of its
# "distributedInfo" rewritten to its number (the trace must have one). The events are the same
# in every copy. Data for a temporary directory: never commit it.
#
#   scripts/fleet-ranks.sh TRACE N DIR
set -euo pipefail
if [ $# -ne 3 ]; then
	echo "usage: fleet-ranks.sh TRACE N DIR" >&2
	exit 2
fi
src=$1 n=$2 dir=$3
mkdir -p "$dir"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
gzip -dcf "$src" >"$raw"
if ! grep -q '"distributedInfo": *{[^}]*"rank": *[0-9]' "$raw"; then
	echo "fleet-ranks: $src: no distributedInfo rank to rewrite" >&2
	exit 2
fi
perl -e '
	my ($raw, $n, $dir) = @ARGV;
	local $/; open(my $in, "<", $raw) or die "$raw: $!"; my $s = <$in>; close $in;
	$s =~ /("distributedInfo": *\{[^}]*?"rank": *)\d+/ or die "no rank";
	my ($pre, $at, $len) = ($1, $-[0], $+[0] - $-[0]);
	for my $k (0 .. $n - 1) {
		open(my $out, ">", "$dir/rank$k.json") or die "$dir/rank$k.json: $!";
		print $out substr($s, 0, $at), $pre, $k, substr($s, $at + $len);
		close $out or die "$dir/rank$k.json: $!";
	}
' "$raw" "$n" "$dir"
