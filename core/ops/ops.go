// Package ops is the list of every operation copse serves, in the order the schema, the
// tool's list and the docs show them. cmd hands it to core.Open; core itself imports no
// operation, so a family can change without the engine knowing.
package ops

import (
	"github.com/copse-dev/copse/core"
	"github.com/copse-dev/copse/core/backend"
	"github.com/copse-dev/copse/core/op/claim"
	"github.com/copse-dev/copse/core/op/create"
	"github.com/copse-dev/copse/core/op/land"
	"github.com/copse-dev/copse/core/op/list"
	"github.com/copse-dev/copse/core/op/remove"
	"github.com/copse-dev/copse/core/op/target"
)

// All is every operation, in a stable order, with the backends Open picks from.
var All = core.NewRegistry(
	list.Op,
	create.Op,
	target.OpenOp,
	target.SwitchOp,
	remove.RemoveOp,
	target.BackOp,
	remove.RestoreOp,
	claim.ClaimOp,
	claim.ReleaseOp,
	remove.PruneOp,
	land.LandOp,
	land.LandStatusOp,
	land.LandDrainOp,
).WithBackends(backend.Picker{})
