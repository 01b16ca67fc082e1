package flowreadertest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/flowreader/flowreader/flowreadertest"
)

func TestPostgreSQL(t *testing.T) {
	url := flowreadertest.PostgreSQL(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d, %v", one, err)
	}
}
