package lossless

// SameRoCE is sameRoCE, for the external tests.
var SameRoCE = sameRoCE
