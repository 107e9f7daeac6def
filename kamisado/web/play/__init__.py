"""The game actor and its services: one game in memory, the hub that holds them, seats, offers, clocks' flags, the computer, presence, news, chat, reports, uploaded records."""
