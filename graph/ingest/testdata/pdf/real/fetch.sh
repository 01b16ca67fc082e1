#!/bin/sh
# Fetches the real public PDFs that tests and local checks read (none is
# kept in the repository), at pinned commits, and checks their SHA-256.
# Usage:
#   graph/ingest/testdata/pdf/real/fetch.sh DIR
# then run the tests that read them with
#   FLOWREADER_REALDOCS=DIR go test ./graph/ingest ./cmd/flowreader
# (without the variable they are skipped and say so), or a local check:
#   FLOWREADER_PDF=DIR/pdf/redp5110_sampled.pdf go test -v -run TestPDFLocal ./graph/ingest
set -eu
dir=${1:?usage: fetch.sh DIR}/pdf
mkdir -p "$dir"
get() { # name url sha256
	curl -fsSL -o "$dir/$1" "$2"
	echo "$3  $dir/$1" | sha256sum -c -
}
docling=https://raw.githubusercontent.com/docling-project/docling/011469074fe53bdde54315ee1120c40710c3c00a/tests/data/pdf/sources
mineru=https://raw.githubusercontent.com/opendatalab/MinerU/b0e220c5f08f4ac3772c054ae643aa9660cfab86/demo/pdfs
gh=https://raw.githubusercontent.com
# The documents go test reads (README.md says what each test checks).
get ca-warn-report.pdf "$gh/jsvine/pdfplumber/147f2c4c07dc1191fc1d05bb589b4f6af3aaf74a/examples/pdfs/ca-warn-report.pdf" f52f80bd057313c8abec2e854c65c4d96658e72744c836e81d3048d8a5861046
get beamer-metropolis-demo.pdf "$gh/matze/mtheme/2c7c913ad02464c8307ff75386ef109e34f29e72/demo/demo.pdf" 81444cec758c23cac76305a99986de7032234c7635c0f8c962fd17f4095dccbc
get impress-export.pdf "$gh/docling-project/docling/011469074fe53bdde54315ee1120c40710c3c00a/tests/data/odf/sources/odf_presentation_01.odp.pdf" 5400452918f7a4fc4cdf895084c5f419ff5c80dd0d591cc8d3dd01b4794af1fb
get scanned-page.pdf "$gh/docling-project/docling/9c742b27e85869fa7f2d16c87916dfabb2e485d9/tests/data/ocr/sources/ocr_test.pdf" 73f23122e9edbdb0a115b448e03c8064a0ea8bdc21d02917ce220cf032454f31
# Local checks only (TestPDFLocal).
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
