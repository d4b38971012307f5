// SPDX-License-Identifier: Apache-2.0

// Package demo ships the data of dcbtop's built-in demo: the scenario the
// simulated switches of github.com/dcbtop/dcbtop/capture/demo play (scenario.json). It holds
// data only; github.com/dcbtop/dcbtop/capture/demo parses and validates it.
package demo

import _ "embed"

// ScenarioJSON is assets/demo/scenario.json, the default demo scenario.
//
//go:embed scenario.json
var ScenarioJSON []byte
