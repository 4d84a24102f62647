// Package sut starts, watches and stops the system under test (SPEC §8).
//
// It sits beside the engine in loadgate's pipeline: runner asks it to start
// the scenario's or a target's server before the first phase, to sample the
// server's process tree from /proc while measured phases run (Monitor,
// Usage), and to stop it after the last phase or on any failure or
// interrupt. A server is started in a process group of its own and stopped
// as a whole, so no stray child outlives the run, not even when loadgate is
// killed. Reporters and assertions read its Usage type in results.
package sut
