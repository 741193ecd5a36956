package campaign

import "sync"

// seenJobs is what a worker remembers of the campaigns it served, to
// refuse a job that comes again (captured and published anew: a signed
// job is valid until its expiry): the jobs it ran (a bit each, in blocks
// of seenBlock jobs, made as needed) and whether it was told that the
// campaign ended. Its memory is bounded: at most maxSeenCampaigns
// campaigns and maxSeenBlocks blocks in all (some 4 MiB) are kept, the
// campaigns used longest ago forgotten first, then the lowest blocks of
// the campaign in use; past that, a job's expiry still refuses it.
type seenJobs struct {
	mu        sync.Mutex
	campaigns map[string]*seenCampaign
	blocks    int
	clock     uint64
}

// seenCampaign is what a worker remembers of one campaign.
type seenCampaign struct {
	ended  bool
	jobs   map[int]*[seenBlock / 64]uint64 // job/seenBlock → its bits
	used   uint64                          // when it was last used (seenJobs.clock)
	lowest int                             // no block below it is kept
}

// The bounds of seenJobs.
const (
	seenBlock        = 512
	maxSeenCampaigns = 1024
	maxSeenBlocks    = 1 << 15
)

// campaign returns what is remembered of campaign id, making it (and
// forgetting the campaign used longest ago when there are too many).
func (s *seenJobs) campaign(id string) *seenCampaign {
	if s.campaigns == nil {
		s.campaigns = map[string]*seenCampaign{}
	}
	s.clock++
	c := s.campaigns[id]
	if c == nil {
		if len(s.campaigns) >= maxSeenCampaigns {
			s.forgetOldest("")
		}
		c = &seenCampaign{jobs: map[int]*[seenBlock / 64]uint64{}}
		s.campaigns[id] = c
	}
	c.used = s.clock
	return c
}

// forgetOldest forgets the campaign used longest ago but keep; false when
// there is none.
func (s *seenJobs) forgetOldest(keep string) bool {
	oldest := ""
	for id, c := range s.campaigns {
		if id != keep && (oldest == "" || c.used < s.campaigns[oldest].used) {
			oldest = id
		}
	}
	if oldest == "" {
		return false
	}
	s.blocks -= len(s.campaigns[oldest].jobs)
	delete(s.campaigns, oldest)
	return true
}

// refused says why job of campaign must not run here ("" : it may): the
// campaign ended, or this worker ran the job already.
func (s *seenJobs) refused(campaign string, job int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.campaign(campaign)
	switch {
	case c.ended:
		return "its campaign ended"
	case job >= 0:
		if b := c.jobs[job/seenBlock]; b != nil && b[job%seenBlock/64]&(1<<(job%64)) != 0 {
			return "this worker ran it already"
		}
	}
	return ""
}

// ran records that job of campaign ran here.
func (s *seenJobs) ran(campaign string, job int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.campaign(campaign)
	if job < 0 || job/seenBlock < c.lowest {
		return
	}
	b := c.jobs[job/seenBlock]
	if b == nil {
		for s.blocks >= maxSeenBlocks {
			if !s.forgetOldest(campaign) {
				c.dropLowest()
				s.blocks--
			}
		}
		if job/seenBlock < c.lowest {
			return
		}
		b = new([seenBlock / 64]uint64)
		c.jobs[job/seenBlock] = b
		s.blocks++
	}
	b[job%seenBlock/64] |= 1 << (job % 64)
}

// dropLowest forgets the campaign's lowest block of jobs (the oldest, as
// jobs are handed out in order).
func (c *seenCampaign) dropLowest() {
	lowest := -1
	for k := range c.jobs {
		if lowest < 0 || k < lowest {
			lowest = k
		}
	}
	delete(c.jobs, lowest)
	c.lowest = lowest + 1
}

// end records that campaign ended: its jobs are refused from now on, and
// the jobs it ran need no longer be remembered.
func (s *seenJobs) end(campaign string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.campaign(campaign)
	c.ended = true
	s.blocks -= len(c.jobs)
	clear(c.jobs)
}
