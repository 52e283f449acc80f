package passes

import "github.com/goaten/goaten/compile/fx"

// DeadCode erases, from the last node to the first, every node whose value
// nobody uses and that is pure (fx's Node.IsImpure): an unused add_, copy_,
// out= call, dropout or with_effects stays, and so do placeholders and the
// output. It is FX's Graph.eliminate_dead_code; attributes stay (only
// FoldConstants removes the constants it made unused), and subgraphs are
// left alone.
func DeadCode(gm *fx.GraphModule) error {
	if err := check("DeadCode", gm); err != nil {
		return err
	}
	_, err := gm.Graph.EliminateDeadCode()
	return wrap("DeadCode", nil, err)
}
