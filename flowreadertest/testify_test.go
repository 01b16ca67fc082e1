package flowreadertest_test

import (
	"github.com/flowreader/flowreader"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/stretchr/testify/suite"

	"github.com/flowreader/flowreader/flowreadertest"
)

// With testify: the kit's assertions return whether they held, so require
// stops the test on one and assert goes on; Evidence's nodes feed testify's
// own assertions.
func TestWithTestify(t *testing.T) {
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
	q := "How many tern nests did the North Mole hold in 2025?"

	require.True(t, flowreadertest.EvidenceContains(t, ix, q, "248 tern nests"))
	assert.True(t, flowreadertest.ReadsAtMost(t, ix, q, 16))
	assert.True(t, flowreadertest.Cites(t, ix, q, "survey-2025"))

	ev := flowreadertest.Evidence(t, ix, q)
	require.NotEmpty(t, ev)
	assert.Equal(t, "survey-2025", ev[0].Doc)

	res, err := ix.Ask(t.Context(), q, flowreader.Options{})
	require.NoError(t, err)
	assert.Contains(t, res.Text, "248")
}

// Inside assert.EventuallyWithT the helpers take testify's *assert.CollectT.
func TestWithCollectT(t *testing.T) {
	ix := flowreadertest.Open(t, flowreader.Config{}, flowreadertest.Passages(harbour()...))
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		flowreadertest.EvidenceContains(c, ix, "What was the peak gust of Storm Elin?", "41 metres")
	}, 5*time.Second, 10*time.Millisecond)
}

// In a testify suite, s.T() is the TB.
type retrievalSuite struct {
	suite.Suite
	docs []string
}

func (s *retrievalSuite) SetupTest() { s.docs = harbour() }

func (s *retrievalSuite) TestStormIsCited() {
	ix := flowreadertest.Open(s.T(), flowreader.Config{}, flowreadertest.Passages(s.docs...))
	s.True(flowreadertest.Cites(s.T(), ix, "Which storm flooded the East Arm?", "storms"))
}

func TestSuite(t *testing.T) { suite.Run(t, new(retrievalSuite)) }
