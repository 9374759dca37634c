package importer

import "strings"

// joinedError is errors.Join on one line: its message is its errors'
// joined by "; ", as tape prints an error, where errors.Join's newlines
// would be escaped (a literal \x0a). errors.Is and errors.As see each.
type joinedError []error

func (e joinedError) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e joinedError) Unwrap() []error { return e }

// joinErrors is the errors that are not nil, joined: nil when there are
// none, the one when there is one.
func joinErrors(errs ...error) error {
	var e joinedError
	for _, err := range errs {
		if err != nil {
			e = append(e, err)
		}
	}
	switch len(e) {
	case 0:
		return nil
	case 1:
		return e[0]
	}
	return e
}
