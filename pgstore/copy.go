package pgstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// copy writes rows into table by COPY, or, on a server where COPY FROM
// STDIN does not work (PGlite), by multi-row INSERTs of at most
// insertRows rows.
func (w *writer) copy(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	if !w.noCopy {
		return w.tx.CopyFrom(ctx, table, cols, src)
	}
	per := max(1, min(insertRows, 60000/len(cols)))
	head := "INSERT INTO " + table.Sanitize() + " (" + strings.Join(cols, ", ") + ") VALUES "
	var args []any
	var sb strings.Builder
	total := int64(0)
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		_, err := w.tx.Exec(ctx, sb.String(), args...)
		total += int64(len(args) / len(cols))
		args = args[:0]
		sb.Reset()
		return err
	}
	for src.Next() {
		vals, err := src.Values()
		if err != nil {
			return total, err
		}
		if len(args) == 0 {
			sb.WriteString(head)
		} else {
			sb.WriteString(", ")
		}
		sb.WriteByte('(')
		for k, v := range vals {
			if k > 0 {
				sb.WriteString(", ")
			}
			args = append(args, v)
			sb.WriteString("$" + strconv.Itoa(len(args)))
		}
		sb.WriteByte(')')
		if len(args)/len(cols) >= per {
			if err := flush(); err != nil {
				return total, err
			}
		}
	}
	if err := src.Err(); err != nil {
		return total, err
	}
	return total, flush()
}

// insertRows bounds a multi-row INSERT of the fallback.
const insertRows = 200
