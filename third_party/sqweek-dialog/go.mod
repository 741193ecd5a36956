module github.com/sqweek/dialog

go 1.22

require github.com/TheTitanrain/w32 v0.0.0-20180517000239-4f5cfb03fabf
