package main

import (
	"net"
	"sync"
)

// Mutants of the entity under test (--mutant N), each a plausible protocol
// bug (docs/case-studies/conference.md):
//
//  1. a Join is answered to the entity itself instead of the sender (an
//     answer sent to the wrong entity): shows when an agent joins while the
//     entity is in the conference;
//  2. a Leave PDU is decoded with its two name fields swapped: shows when a
//     known partner leaves the conference;
//  3. data requests are multicast to the entity itself too (data delivered
//     to its sender): shows at the first data request in a conference.
const (
	mutantWrongAnswer = 1
	mutantLeaveFields = 2
	mutantEcho        = 3
)

// Indication is what an entity reports to its user (the CSAP) for a PDU
// it processed: the sender's UID and the PDU.
type Indication struct {
	UID int
	PDU PDU
}

// CPE is a Conference Protocol Entity (seed 002, section III.A, Table I):
// idle or in one conference, with its partners (AU, with their names). It
// sends and receives PDUs over UDP; the universe maps UIDs to endpoints.
type CPE struct {
	UID    int
	Nick   string
	Mutant int

	conn     *net.UDPConn
	universe map[int]*net.UDPAddr // UID -> endpoint, itself included

	mu         sync.Mutex // one operation at a time on the state
	conference string     // "" when idle
	partners   map[int]string

	// Indicate, when set, is called (with the state locked, so in the
	// order of processing) for every PDU the entity processes.
	Indicate func(Indication)
}

// NewCPE opens the entity's UDP socket on loopback.
func NewCPE(uid int, nick string) (*CPE, error) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	return &CPE{UID: uid, Nick: nick, conn: conn, partners: map[int]string{}}, nil
}

// Addr is the entity's endpoint.
func (c *CPE) Addr() *net.UDPAddr { return c.conn.LocalAddr().(*net.UDPAddr) }

// SetUniverse gives the entity the endpoints of all potential partners.
func (c *CPE) SetUniverse(u map[int]*net.UDPAddr) { c.universe = u }

// Close closes the socket; Serve returns.
func (c *CPE) Close() error { return c.conn.Close() }

func (c *CPE) send(p PDU, uid int) {
	b, err := p.Encode()
	if err != nil {
		return
	}
	if addr, ok := c.universe[uid]; ok {
		c.conn.WriteToUDP(b, addr)
	}
}

// multicast sends to every partner (AU), broadcast to every potential one.
func (c *CPE) multicast(p PDU) {
	for uid := range c.partners {
		c.send(p, uid)
	}
	if c.Mutant == mutantEcho && p.Type == pduData {
		c.send(p, c.UID)
	}
}

func (c *CPE) broadcast(p PDU) {
	for uid := range c.universe {
		if uid != c.UID {
			c.send(p, uid)
		}
	}
}

// Join makes the entity active in the conference (doJoin); false when it
// is not idle.
func (c *CPE) Join(conference string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conference != "" || conference == "" {
		return false
	}
	c.conference = conference
	c.broadcast(PDU{Type: pduJoin, Partner: c.Nick, Conference: conference})
	return true
}

// Leave makes the entity idle (doLeave); false when it is idle.
func (c *CPE) Leave() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conference == "" {
		return false
	}
	c.multicast(PDU{Type: pduLeave, Partner: c.Nick, Conference: c.conference})
	c.partners = map[int]string{}
	c.conference = ""
	return true
}

// DataReq sends a message to the partners (doDataReq); false when idle.
func (c *CPE) DataReq(msg string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conference == "" {
		return false
	}
	c.multicast(PDU{Type: pduData, Data: msg})
	return true
}

// Active reports whether the entity is in a conference, and its partners.
func (c *CPE) Active() (bool, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conference != "", len(c.partners)
}

// Serve receives PDUs until the socket is closed, processing them as
// Table I says: an idle entity ignores them all.
func (c *CPE) Serve() {
	buf := make([]byte, 512)
	for {
		n, from, err := c.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		p, err := DecodePDU(buf[:n])
		if err != nil {
			continue
		}
		if p.Type == pduLeave && c.Mutant == mutantLeaveFields {
			p.Partner, p.Conference = p.Conference, p.Partner
		}
		c.receive(c.sender(from), p)
	}
}

func (c *CPE) sender(from *net.UDPAddr) int {
	for uid, a := range c.universe {
		if a.Port == from.Port && a.IP.Equal(from.IP) {
			return uid
		}
	}
	return 0
}

func (c *CPE) receive(sender int, p PDU) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conference == "" || sender == 0 {
		return // idle: every PDU is ignored
	}
	switch p.Type {
	case pduJoin:
		if p.Conference == c.conference {
			c.partners[sender] = p.Partner
			to := sender
			if c.Mutant == mutantWrongAnswer {
				to = c.UID
			}
			c.send(PDU{Type: pduAnswer, Partner: c.Nick, Conference: c.conference}, to)
		}
	case pduAnswer:
		if p.Conference == c.conference {
			c.partners[sender] = p.Partner
		}
	case pduLeave:
		if p.Conference == c.conference {
			delete(c.partners, sender)
		}
	case pduData:
		if _, ok := c.partners[sender]; !ok && sender != c.UID {
			c.send(PDU{Type: pduJoin, Partner: c.Nick, Conference: c.conference}, sender)
		}
	}
	if c.Indicate != nil {
		c.Indicate(Indication{UID: sender, PDU: p})
	}
}
