// Package toolapi is the model's interface: tool definitions (JSON Schema and a
// description that states the rules up front), strict decoding of arguments, dispatch
// to txn, and the text a model reads back.
//
// Engine is the one entry point, used by vfsctl call, vfsctl serve and every operator's
// command (log, show, undo, redo, rewind, replay, fsck, stats, export, adopt). An agent
// runtime written in Go opens it on its workspace, hands the tools to the model and
// dispatches the model's calls by name:
//
//	eng, err := toolapi.Open("/path/to/workspace", toolapi.Options{Holder: "my-agent"})
//	if err != nil {
//		return err
//	}
//	defer eng.Close()
//	tools := eng.Tools() // name, description, JSON Schema: hand them to the model
//	res := eng.Call(ctx, "conversation-1", "edit_file", argsFromModel)
//	// res.OK, res.Text (what the model reads), res.Kind (a stable error kind), res.Txn
//	undo := eng.Undo(ctx, uint64(*res.Txn)) // undo by transaction
//
// ExampleEngine runs it whole (go test -run ExampleEngine -v ./toolapi; go doc -http
// shows it at Engine).
//
// Decoding is strict yet removes whole classes of honest mistakes: the widely used
// aliases of the edit keys (old_string/new_string, old_str/new_str, search/replace),
// edits sent as a JSON string or as a single object, a lone top-level oldText/newText,
// and file_path for path are accepted. Anything else unknown or mistyped is
// invalid_input naming the field and the shape to send.
package toolapi
