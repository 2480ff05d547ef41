package core

import "sync"

// cachedLookupWorkers bounds the goroutines of CachedStatuses: a lookup is stat calls,
// mostly waiting on the file system's metadata cache, not CPU.
const cachedLookupWorkers = 4

// CachedStatuses returns the statuses of those of paths whose last status the status
// cache proves still true, and runs no git. The picker asks it for the rows on screen the
// moment the list is in, so they fill in together in one frame; the status pool then does
// the rest (and these rows again, cheaply). For display only, like Statuses.
func (s *Service) CachedStatuses(paths []string) []StatusResult {
	si := s.impl
	var (
		mu  sync.Mutex
		out []StatusResult
		wg  sync.WaitGroup
	)
	pass := si.statusCache.Pass() // one read of the repository-wide files for these rows
	next := make(chan string)
	for range min(cachedLookupWorkers, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				if st, _, hit := pass.Lookup(p); hit {
					mu.Lock()
					out = append(out, StatusResult{Path: p, Status: FromGitStatus(st)})
					mu.Unlock()
				}
			}
		}()
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
	return out
}
