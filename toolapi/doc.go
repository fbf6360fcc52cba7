// Package toolapi is the model's interface: tool definitions (JSON Schema and a
// description that states the rules up front), strict decoding of arguments, dispatch
// to txn, and the text a model reads back.
//
// Decoding is strict yet removes whole classes of honest mistakes: the widely used
// aliases of the edit keys (old_string/new_string, old_str/new_str, search/replace),
// edits sent as a JSON string or as a single object, a lone top-level oldText/newText,
// and file_path for path are accepted. Anything else unknown or mistyped is
// invalid_input naming the field and the shape to send.
package toolapi
