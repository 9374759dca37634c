package source

import "testing"

func TestObject(t *testing.T) {
	o, err := LineMembers([]byte(`{"s":"修复\n","n":42,"f":1.5,"t":true,"o":{"a":"b"},"x":null}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	obj := Object(o)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Str", obj.Str("s"), "修复\n"},
		{"Str of a number", obj.Str("n"), ""},
		{"Int", obj.Int("n"), int64(42)},
		{"Int of a fraction", obj.Int("f"), int64(0)},
		{"True", obj.True("t"), true},
		{"True of a string", obj.True("s"), false},
		{"Has null", obj.Has("x"), true},
		{"Has none", obj.Has("y"), false},
		{"Sub", obj.Sub("o").Str("a"), "b"},
		{"Sub of a string", len(obj.Sub("s")), 0},
		{"Raw", string(obj.Raw("o")), `{"a":"b"}`},
		{"Without", string(obj.Without("s", "n", "f", "t", "x")), `{"o":{"a":"b"}}`},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}
