// Package flowreader answers questions over long multimodal document
// collections by routing evidence with a minimum-cost flow instead of top-k
// retrieval (Mehrish & Vascon, "FlowReader", arXiv 2606.07235).
//
// A collection is built once into a content graph (package graph). Each
// question is scored against every node (package score), one min-cost flow
// routes a fixed evidence budget through the graph (package flow, solved by
// package flow/mcf), a selector picks a diverse set of evidence chains
// (package selector), and readers turn the chains into an answer with
// citations (package reader). Models are pluggable (package llm); with no
// server configured, embedded defaults run everything offline.
package flowreader
