package toolapi

import (
	"bytes"
	"encoding/json"
	"slices"
)

// schemaNode is one JSON Schema as the tools state it; its fields are in the order
// the definitions print them.
type schemaNode struct {
	Type                 any         `json:"type"`
	MinLength            int         `json:"minLength,omitempty"`
	Minimum              int         `json:"minimum,omitempty"`
	MinItems             int         `json:"minItems,omitempty"`
	Description          string      `json:"description,omitempty"`
	Enum                 []string    `json:"enum,omitempty"`
	Items                *schemaNode `json:"items,omitempty"`
	Properties           properties  `json:"properties,omitempty"`
	Required             []string    `json:"required,omitempty"`
	AdditionalProperties *bool       `json:"additionalProperties,omitempty"`
}

// properties keep the table's order when marshalled.
type properties []property

type property struct {
	name   string
	schema *schemaNode
}

func (p properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, q := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(q.name)
		v, err := json.Marshal(q.schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// inputSchema is the JSON Schema of a tool's arguments. strict writes it as OpenAI's
// strict mode takes it: every property required, an optional one nullable instead
// (the decoder reads null as left out), and none of the keywords it rejects (the
// decoder checks what they said).
func inputSchema(d *toolDef, strict bool) json.RawMessage {
	b, err := json.Marshal(objectSchema(&d.args, strict))
	if err != nil {
		panic("toolapi: the schema of " + d.name + " does not marshal: " + err.Error())
	}
	return b
}

func objectSchema(o *objectDef, strict bool) *schemaNode {
	no := false
	s := &schemaNode{Type: "object", AdditionalProperties: &no}
	for i := range o.fields {
		f := &o.fields[i]
		if f.hidden {
			continue
		}
		need := f.required || o.soleVisible(f.name)
		s.Properties = append(s.Properties, property{f.name, argSchema(f, need, strict)})
		if need || strict {
			s.Required = append(s.Required, f.name)
		}
	}
	if strict {
		slices.Sort(s.Required)
	}
	return s
}

// soleVisible: name is the one field of o's oneOf that the schema shows, so the
// schema states it as required (the others are hidden shapes a runtime forwards).
func (o *objectDef) soleVisible(name string) bool {
	if !slices.Contains(o.oneOf, name) {
		return false
	}
	for _, alt := range o.oneOf {
		if f := o.field(alt); alt != name && f != nil && !f.hidden {
			return false
		}
	}
	return true
}

func argSchema(f *argDef, need, strict bool) *schemaNode {
	if f.typ == tObject {
		s := objectSchema(f.items, strict)
		s.Description = f.schemaDesc()
		return s
	}
	s := &schemaNode{Type: f.typ, Description: f.schemaDesc()}
	if strict && !need {
		s.Type = []string{f.typ, "null"}
	}
	if !strict {
		switch f.typ {
		case tString:
			s.MinLength = f.min
		case tInteger:
			if !f.signed {
				s.Minimum = f.min
			}
		case tArray:
			s.MinItems = f.min
		}
	}
	if f.items != nil {
		s.Items = objectSchema(f.items, strict)
	}
	if f.elem != "" {
		s.Items = &schemaNode{Type: f.elem}
	}
	s.Enum = f.enum
	return s
}
