module early.modex/localefix

go 1.26
