#!/bin/sh
# Fetches the real PDFs used for local checks that are not kept in the
# repository (too large, or papers whose licence does not let us keep a
# copy), at pinned commits, and checks their SHA-256. Usage:
#   graph/ingest/testdata/pdf/real/fetch.sh DIR
# then, for example:
#   FLOWREADER_PDF=DIR/redp5110_sampled.pdf go test -v -run TestPDFLocal ./graph/ingest
set -eu
dir=${1:?usage: fetch.sh DIR}
mkdir -p "$dir"
get() { # name url sha256
	curl -fsSL -o "$dir/$1" "$2"
	echo "$3  $dir/$1" | sha256sum -c -
}
docling=https://raw.githubusercontent.com/docling-project/docling/011469074fe53bdde54315ee1120c40710c3c00a/tests/data/pdf/sources
mineru=https://raw.githubusercontent.com/opendatalab/MinerU/b0e220c5f08f4ac3772c054ae643aa9660cfab86/demo/pdfs
# IBM Redbook sample (docling, MIT): text the pure-Go reader split into "fille d".
get redp5110_sampled.pdf "$docling/redp5110_sampled.pdf" 2f6bc92861997d1434c069040dc63447c3e415e8e9eadbd1a8129ba2327ddba5
# A paper's results page (arXiv 2305.03393, page 9; docling test file).
get 2305.03393v1-pg9.pdf "$docling/2305.03393v1-pg9.pdf" a07f5c34601ba2c234d898cbfaa9e29a7045996ccd82ccab3012516220a1f3a4
# A handbook page (FAA Aviation Maintenance Technician Handbook sample; docling test file).
get amt_handbook_sample.pdf "$docling/amt_handbook_sample.pdf" 7099fe05ade36067cf66e72b23277972a1a2b7d2da1cb82c8d690efd70143fe0
# MinerU's demo papers (Apache-2.0 repository): two-column papers with captioned tables and figures.
get mineru-demo1.pdf "$mineru/demo1.pdf" f3b3be345bf2df8979f2491ca9466e078e4fd1d6a216611faa8566e4c44d474b
get mineru-demo2.pdf "$mineru/demo2.pdf" 9e94e95637356e1599510436278747d1150a3dfb822233bdc77a9dcb9a4fc6e4
get mineru-demo3.pdf "$mineru/demo3.pdf" 7fa1e7e571b093a671c5daff7c1d4838144114ceca80fd57c127537f4da3a5c2
