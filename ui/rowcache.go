package ui

// A rowCache keeps the overview's rows as the last two frames drew them,
// by what they show (ovRow): a row that did not change is neither styled
// nor laid out again, and the frame's cost does not grow with the rows
// that stay the same. A nil *rowCache keeps nothing (each row is drawn).
// It holds what the last two frames used, no more: a frame starts a new
// generation (frame), and what the one before did not use is dropped.
type rowCache struct {
	cellsNow, cellsPrev map[ovRow]rowCells
	linesNow, linesPrev map[lineKey]string
}

// rowCells are a row's styled cells in column order and their widths.
type rowCells struct {
	cells  []string
	widths []int
}

// A lineKey is what one line of the table is drawn from: the row, whether
// the cursor is on it, and the layout (the screen's width, the columns
// shown and their widths).
type lineKey struct {
	row    ovRow
	cur    bool
	layout string
}

func newRowCache() *rowCache {
	return &rowCache{cellsNow: map[ovRow]rowCells{}, cellsPrev: map[ovRow]rowCells{},
		linesNow: map[lineKey]string{}, linesPrev: map[lineKey]string{}}
}

// frame starts a frame: what the frame before last used is dropped.
func (c *rowCache) frame() {
	if c == nil {
		return
	}
	c.cellsPrev, c.cellsNow = c.cellsNow, c.cellsPrev
	c.linesPrev, c.linesNow = c.linesNow, c.linesPrev
	clear(c.cellsNow)
	clear(c.linesNow)
}

// cells returns row's cells, drawn by draw unless cached.
func (c *rowCache) cells(row ovRow, draw func(ovRow) []string) rowCells {
	if c != nil {
		if rc, ok := c.cellsNow[row]; ok {
			return rc
		}
		if rc, ok := c.cellsPrev[row]; ok {
			c.cellsNow[row] = rc
			return rc
		}
	}
	rc := rowCells{cells: draw(row)}
	rc.widths = make([]int, len(rc.cells))
	for i, cell := range rc.cells {
		rc.widths[i] = width(cell)
	}
	if c != nil {
		c.cellsNow[row] = rc
	}
	return rc
}

// line returns the line k stands for, drawn by draw unless cached.
func (c *rowCache) line(k lineKey, draw func() string) string {
	if c != nil {
		if s, ok := c.linesNow[k]; ok {
			return s
		}
		if s, ok := c.linesPrev[k]; ok {
			c.linesNow[k] = s
			return s
		}
	}
	s := draw()
	if c != nil {
		c.linesNow[k] = s
	}
	return s
}
