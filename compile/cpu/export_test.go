package cpu

// PageTileBytes lets tests move the least a group must move for page
// tiles.
var PageTileBytes = &pageTileBytes
